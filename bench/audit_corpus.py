"""A synthetic home of session records for the audit's benchmark: Claude Code transcripts and
Codex rollouts in the layout and line formats the readers of `audit/readers/` read (the reader
tests' fixtures in `tests/audit/fixtures/` are the reference), with what was written summed by
the generator itself, so that what `ctxconf audit` reads can be held against it.

    ~/.claude/projects/<project>/<sessionId>.jsonl
        a user line (a tool result), then one `assistant` line per content block, the lines of a
        request sharing `requestId` and `message.id` and each repeating its usage (the 5m/1h
        split of the writes; on some requests the first line's `input_tokens` is the streaming
        placeholder 1, and `output_tokens` grows line by line); a pause past the lifetime or a
        rewritten prefix now and then, after which the request reads nothing and writes all
    ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl
        `session_meta`, a `turn_context` per turn, the `response_item`s of the history (a user
        message, reasoning, a function call and its output) and a `token_count` event per
        response (input inclusive of the cache; `cache_write_input_tokens` in builds from
        0.171.0, absent in older ones, where the write is N/A); now and then the same event
        told twice, which is one response

Sizes are bytes of files: each session is written until its file reaches its share.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, TextIO

SEED = 20261206
START = datetime(2026, 11, 2, 9, 0, tzinfo=timezone.utc)
CLAUDE_MODELS = ("claude-sonnet-4-5", "claude-opus-4-5")
CODEX_MODEL = "gpt-5.4"
CODEX_WITH_WRITES = "0.171.0"  # the first build whose token_count names the write
CODEX_WITHOUT_WRITES = "0.150.0"
# Of every ten sessions, this many are Codex rollouts; the rest Claude Code transcripts.
CODEX_SHARE = 3
# A session compacts when its context passes this many tokens (its window is larger).
CONTEXT_LIMIT = 160_000
_ALPHABET = "abcdefghijklmnopqrstuvwxyz      \n0123456789_(){}.,:;=+-*/"


@dataclass
class Sums:
    """What the generator wrote for one session: requests and tokens by class. A class no
    request of the session carries (Codex writes in an older build) is None, as the audit
    says N/A."""

    source: str
    session: str
    file: Path
    requests: int = 0
    uncached: int = 0
    read: int = 0
    written_5m: int | None = 0
    written_1h: int | None = 0
    output: int = 0
    placeholders: int = 0  # requests whose first line carried input_tokens 1
    repeated_events: int = 0  # token_count events told twice

    def add(self, uncached: int, read: int, five: int | None, hour: int | None, out: int) -> None:
        self.requests += 1
        self.uncached += uncached
        self.read += read
        self.output += out
        if five is None:
            self.written_5m = None
        elif self.written_5m is not None:
            self.written_5m += five
        if hour is None:
            self.written_1h = None
        elif self.written_1h is not None:
            self.written_1h += hour


@dataclass
class Corpus:
    home: Path
    sessions: list[Sums] = field(default_factory=list)

    @property
    def files(self) -> list[Path]:
        return [s.file for s in self.sessions]

    @property
    def bytes(self) -> int:
        return sum(s.file.stat().st_size for s in self.sessions)

    @property
    def requests(self) -> int:
        return sum(s.requests for s in self.sessions)

    def roots(self) -> list[Path]:
        """The folders to hand the audit, as its default places are under the home."""
        return [self.home / ".claude" / "projects", self.home / ".codex" / "sessions"]


class _Filler:
    """Text to pad tool results with: slices of one long seeded string (fast to make)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.text = "".join(rng.choice(_ALPHABET) for _ in range(1 << 20))

    def take(self, size: int) -> str:
        size = min(size, len(self.text))
        at = self.rng.randrange(0, len(self.text) - size + 1)
        return self.text[at : at + size]


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _dump(out: TextIO, record: dict[str, Any]) -> None:
    out.write(json.dumps(record, separators=(",", ":"), ensure_ascii=False))
    out.write("\n")


def _session_id(seed: int, number: int) -> str:
    return f"{seed % (1 << 32):08x}-0000-4000-8000-{number:012x}"


def _claude_session(
    home: Path, number: int, share: int, pad: int, rng: random.Random, filler: _Filler
) -> Sums:
    session = _session_id(SEED, number)
    project = f"/home/u/proj{number % 7}"
    folder = home / ".claude" / "projects" / project.replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    sums = Sums("claude-code", session, path)
    model = CLAUDE_MODELS[number % len(CLAUDE_MODELS)]
    hour = number % 3 == 0  # a third of the sessions ask for one-hour writes
    now = START + timedelta(hours=number * 5)
    base = {
        "isSidechain": False,
        "userType": "external",
        "cwd": project,
        "sessionId": session,
        "version": "2.1.200",
        "gitBranch": "main",
    }
    context = 0  # what the cache holds after the request before
    parent: str | None = None
    with path.open("w", encoding="utf-8") as out:
        written = 0
        turn = 0
        while written < share:
            turn += 1
            user_uuid = f"u{turn}"
            content = filler.take(rng.randint(pad // 2, pad * 3 // 2))
            user = {
                "parentUuid": parent,
                **base,
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"toolu_{turn - 1}",
                            "content": content,
                        }
                    ]
                    if turn > 1
                    else content,
                },
                "uuid": user_uuid,
                "timestamp": _stamp(now),
            }
            line = json.dumps(user, separators=(",", ":"), ensure_ascii=False)
            out.write(line + "\n")
            written += len(line) + 1
            parent = user_uuid
            compacted = context > CONTEXT_LIMIT
            if compacted:  # the window is full: Claude Code compacts, and starts the cache anew
                line = json.dumps(
                    {
                        "parentUuid": None,
                        "logicalParentUuid": parent,
                        **base,
                        "type": "system",
                        "subtype": "compact_boundary",
                        "content": "Conversation compacted",
                        "uuid": f"c{turn}",
                        "timestamp": _stamp(now),
                    },
                    separators=(",", ":"),
                )
                out.write(line + "\n")
                written += len(line) + 1
                context = 0
            # The request: what is new since the last one is written, the rest read; a pause
            # past the lifetime or a changed prefix now and then, and all of it is written.
            pause = rng.random()
            if pause < 0.02:
                now += timedelta(seconds=rng.randint(400, 3000) if not hour else 4000)
            else:
                now += timedelta(seconds=rng.randint(2, 40))
            fresh = len(content) // 4 + rng.randint(50, 400)
            lost = turn > 1 and not compacted and (pause < 0.02 or rng.random() < 0.01)
            if turn == 1 or compacted:
                fresh += 12000  # the system prompt and tools (and the summary)
            read, write = (0, context + fresh) if lost else (context, fresh)
            context = read + write
            uncached = rng.randint(2, 40)
            output = rng.randint(40, 900)
            five, one = (0, write) if hour else (write, 0)
            placeholder = rng.random() < 0.15
            blocks: list[dict[str, Any]] = [
                {
                    "type": "thinking",
                    "thinking": filler.take(rng.randint(50, 300)),
                    "signature": "s",
                },
                {"type": "text", "text": filler.take(rng.randint(20, 200))},
                {
                    "type": "tool_use",
                    "id": f"toolu_{turn}",
                    "name": "Read",
                    "input": {"file_path": f"src/m{turn}.py"},
                },
            ]
            if rng.random() < 0.3:
                blocks = blocks[1:]
            request_id = f"req_{number:04x}{turn:06x}"
            message_id = f"msg_{number:04x}{turn:06x}"
            for index, block in enumerate(blocks):
                last = index == len(blocks) - 1
                now += timedelta(milliseconds=rng.randint(100, 900))
                uuid = f"a{turn}.{index}"
                record = {
                    "parentUuid": parent,
                    **base,
                    "requestId": request_id,
                    "type": "assistant",
                    "message": {
                        "id": message_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [block],
                        "stop_reason": "tool_use" if last else None,
                        "usage": {
                            "input_tokens": 1 if placeholder and index == 0 else uncached,
                            "cache_creation_input_tokens": write,
                            "cache_read_input_tokens": read,
                            "cache_creation": {
                                "ephemeral_5m_input_tokens": five,
                                "ephemeral_1h_input_tokens": one,
                            },
                            "output_tokens": output if last else min(output, 5 + index),
                            "service_tier": "standard",
                        },
                    },
                    "uuid": uuid,
                    "timestamp": _stamp(now),
                }
                if hour:
                    record["promptCacheRequested"] = "1h"
                line = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
                out.write(line + "\n")
                written += len(line) + 1
                parent = uuid
            sums.add(uncached, read, five, one, output)
            sums.placeholders += placeholder
            context += output
    return sums


def _codex_session(
    home: Path, number: int, share: int, pad: int, rng: random.Random, filler: _Filler
) -> Sums:
    session = _session_id(SEED + 1, number)
    begun = START + timedelta(hours=number * 5, minutes=7)
    day = home / ".codex" / "sessions" / begun.strftime("%Y/%m/%d")
    day.mkdir(parents=True, exist_ok=True)
    path = day / f"rollout-{begun:%Y-%m-%dT%H-%M-%S}-{session}.jsonl"
    sums = Sums("codex", session, path)
    version = CODEX_WITH_WRITES if number % 2 == 0 else CODEX_WITHOUT_WRITES
    writes = version == CODEX_WITH_WRITES
    project = f"/home/u/proj{number % 7}"
    now = begun
    total = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
    if writes:
        total["cache_write_input_tokens"] = 0
    total["reasoning_output_tokens"] = 0

    def event(kind: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": _stamp(now), "type": kind, "payload": payload}

    with path.open("w", encoding="utf-8") as out:
        lines = [
            event(
                "session_meta",
                {
                    "id": session,
                    "timestamp": _stamp(now),
                    "cwd": project,
                    "originator": "codex_cli_rs",
                    "cli_version": version,
                    "source": "cli",
                    "model_provider": "openai",
                    "base_instructions": {"text": "You are Codex. " + filler.take(2000)},
                },
            )
        ]
        written = 0
        context = 0
        turn = 0
        for record in lines:
            line = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
            out.write(line + "\n")
            written += len(line) + 1
        while written < share:
            turn += 1
            batch: list[dict[str, Any]] = []
            if context > CONTEXT_LIMIT:  # compacted: the history replaced by a summary
                summary = {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": filler.take(4000)}],
                }
                batch.append(
                    event("compacted", {"message": "summary", "replacement_history": [summary]})
                )
                context = 0
                fresh_extra = 9000 + 1000
            else:
                fresh_extra = 9000 if turn == 1 else 0
            if turn == 1 or rng.random() < 0.1:
                now += timedelta(seconds=rng.randint(5, 60))
                batch.append(
                    event(
                        "turn_context",
                        {
                            "cwd": project,
                            "approval_policy": "on-request",
                            "model": CODEX_MODEL,
                            "effort": "medium",
                            "summary": "auto",
                        },
                    )
                )
                said = filler.take(rng.randint(40, 400))
                batch.append(
                    event(
                        "response_item",
                        {
                            "type": "message",
                            "role": "user",
                            "content": [{"type": "input_text", "text": said}],
                        },
                    )
                )
                batch.append(event("event_msg", {"type": "user_message", "message": said}))
                fresh = len(said) // 4
            else:
                result = filler.take(rng.randint(pad // 2, pad * 3 // 2))
                now += timedelta(seconds=rng.randint(1, 20))
                batch.append(
                    event(
                        "response_item",
                        {
                            "type": "function_call_output",
                            "call_id": f"call_{turn - 1}",
                            "output": result,
                        },
                    )
                )
                fresh = len(result) // 4
            fresh += fresh_extra
            now += timedelta(seconds=rng.randint(1, 15))
            batch.append(
                event(
                    "response_item",
                    {
                        "type": "reasoning",
                        "summary": [],
                        "content": None,
                        "encrypted_content": "gAAAA",
                    },
                )
            )
            batch.append(
                event(
                    "response_item",
                    {
                        "type": "function_call",
                        "name": "shell",
                        "arguments": json.dumps({"command": ["cat", f"src/m{turn}.py"]}),
                        "call_id": f"call_{turn}",
                    },
                )
            )
            lost = turn > 1 and not fresh_extra and rng.random() < 0.02
            read = 0 if lost else context
            new = context + fresh - read
            write = new - min(new, rng.randint(0, 200)) if writes else 0
            uncached = new - write
            output = rng.randint(40, 900)
            reasoning = output // 3
            context += fresh + output
            last = {
                "input_tokens": uncached + read + write,
                "cached_input_tokens": read,
                "output_tokens": output,
                "reasoning_output_tokens": reasoning,
            }
            if writes:
                last["cache_write_input_tokens"] = write
            for key, value in last.items():
                total[key] += value
            info = {
                "total_token_usage": {
                    **total,
                    "total_tokens": total["input_tokens"] + total["output_tokens"],
                },
                "last_token_usage": {**last, "total_tokens": last["input_tokens"] + output},
                "model_context_window": 272000,
            }
            batch.append(
                event("event_msg", {"type": "token_count", "info": info, "rate_limits": None})
            )
            if rng.random() < 0.05:  # the same event told again: one response
                batch.append(
                    event(
                        "event_msg",
                        {
                            "type": "token_count",
                            "info": info,
                            "rate_limits": {"primary": {"used_percent": 1.0}},
                        },
                    )
                )
                sums.repeated_events += 1
            for record in batch:
                line = json.dumps(record, separators=(",", ":"), ensure_ascii=False)
                out.write(line + "\n")
                written += len(line) + 1
            sums.add(uncached, read, write if writes else None, None, output)
    return sums


def generate(home: Path, size: int, sessions: int, pad: int = 6000, seed: int = SEED) -> Corpus:
    """Write about `size` bytes of session records under `home`, in `sessions` sessions (three
    in ten Codex rollouts); `pad` is the mean size of a tool result, so that the same bytes can
    hold more or fewer requests."""
    rng = random.Random(seed)
    filler = _Filler(rng)
    corpus = Corpus(home)
    share = max(1, size // max(1, sessions))
    for number in range(sessions):
        make = _codex_session if number % 10 < CODEX_SHARE else _claude_session
        corpus.sessions.append(make(home, number, share, pad, rng, filler))
    return corpus


def audit_sums(doc: dict[str, Any]) -> Iterator[Sums]:
    """The sums of an audit's results document (`--json`), per session, in the same form."""
    for session in doc["sessions"]:
        rows = session["timeline"]
        sums = Sums(
            session["source"], session["session"], Path(rows[0]["file"]) if rows else Path()
        )
        for row in rows:
            sums.add(
                row["uncached"] or 0,
                row["read"] or 0,
                row["written_5m"],
                row["written_1h"],
                row["output"] or 0,
            )
        yield sums
