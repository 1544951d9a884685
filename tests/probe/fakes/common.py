"""A small agent harness for the probe's tests: a real HTTP client of the mock, one API shape per
entry script, with deliberate faults chosen by flag.

Run one turn: `fake_chat.py [--fault NAME]... [--resume] MESSAGE` (the session is kept under
$HOME/.fake), or `--stream-json`: one `{"message": …}` line per turn on standard input, a
`{"type": "result"}` line after each. It honours FAKETIME ("@YYYY-MM-DD HH:MM:SS") itself, as
libfaketime would make a real harness do. Without faults it keeps to the rules the probe checks.

Faults: date-in-system (the date in a prompt made once, and no note at midnight),
date-per-process (the date in a prompt made again by every process, as a harness that keeps
only its history does),
rebuilt-prompt (a prompt remade every request), rewritten-previous (a reminder on the last user
message, dropped from it in the next request), changing-tools (a tool more on every request),
uncapped (a long output passed whole), ignore-usage (no cached tokens in the output).
Faults of caching, where the shape has the field: no-cache-marks (Anthropic: no
`cache_control` at all), fifth-mark (Anthropic: a mark on the system prompt, every tool and the
last block of each of the last two messages, five from the second request on),
five-marks-always (Anthropic: the system prompt, every tool, and the last message's text marked
again in a block of its own: five on every request, so every one is refused), moving-cache-key
(OpenAI: a `prompt_cache_key` made anew by each process), changing-effort (the reasoning effort,
or Gemini's thinking budget, alternating between requests).

The mid-session changes (`changes.py`): `--instructions FILE` (an instruction file in the work
folder, in the first prompt, an edit told as a note), `--mcp-config FILE` (an MCP server, its tools
listed at each turn's start, the tool list made at the first request and kept), `--plan` (plan
mode, told as a note), `--model NAME` (a model switch), and the message `/compact` (the summary
asked for as the next turn, the history started over from it). Their faults: instructions-in-system
(the prompt remade with the edit), instructions-into-first (a resume writes the file into the
first message), instructions-ignored (never told), mcp-join (the server's tools offered as they
come), plan-tools (plan mode drops the shell tool), switch-rewrites (a switch rewrites the first
message), compact-apart (the summary asked for under its own prompt, no tools, the transcript
pasted), compact-keeps-history (the old messages kept after the summary), compact-twice (the
summary asked for a second time, the same request again, before the session goes on).

With `--persist` each message is also appended to `$HOME/.fake/transcript.jsonl` as it comes,
and a resumed session reloads from it, cut back to the last turn boundary (a crash mid-call
leaves nothing of its turn). Faults of the reload: orphan-call (the transcript as written, a
call without its result), aborted-result (a synthetic "aborted" result for such a call),
stripped-results (results reloaded without their surrounding whitespace, so the earlier turns
are not sent as they were).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from changes import Changes

FAULTS = (
    "date-in-system",
    "date-per-process",
    "rebuilt-prompt",
    "rewritten-previous",
    "changing-tools",
    "uncapped",
    "ignore-usage",
    "orphan-call",
    "aborted-result",
    "stripped-results",
    "no-cache-marks",
    "fifth-mark",
    "five-marks-always",
    "moving-cache-key",
    "changing-effort",
    # Not a fault: the system prompt's mark asks for an hour (Anthropic), the last block's for
    # five minutes, as a harness that keeps its prompt through a pause does.
    "hour-mark",
    # Not a fault: Anthropic's thinking asked for (`thinking` enabled); the other shapes ask
    # for reasoning as they always do (Responses' `reasoning`, Gemini's `thinkingConfig`).
    "thinking",
    # Not a fault: after each turn a side conversation of its own, a memory subagent under its own
    # prompt and one tool, sent the conversation so far (as qwen-code does).
    "memory-subagent",
    # Faults of the mid-session changes (changes.py).
    "instructions-in-system",
    "instructions-into-first",
    "instructions-ignored",
    "mcp-join",
    "plan-tools",
    "switch-rewrites",
    "compact-apart",
    "compact-keeps-history",
    "compact-twice",
)
MEMORY_PROMPT = "You extract durable facts from the conversation into memory files."
MEMORY_TASK = "Update the memory files from the conversation above."
ABORTED = "Tool call aborted: the session ended before it finished."
HEAD_LINES, TAIL_LINES = 200, 100
# A fixed guide in the system prompt, so that the prompt passes the providers' cache minimums
# (1,024 tokens and more) as real harnesses' prompts do.
GUIDE = [f"Guideline {n}: keep to the task, say what you did, keep it short." for n in range(90)]
EFFORTS = ("low", "high")
STARTED = time.monotonic()


@dataclass
class Answer:
    text: str
    calls: list[dict[str, Any]]  # {"id", "name", "args"}
    cached: int | None
    # The model's reasoning as it came, in the shape's own form (Anthropic's thinking blocks,
    # Responses' reasoning items, Gemini's thought parts, Chat's reasoning_content), sent back
    # as it came in its place.
    reasoning: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Shape:
    """How one API shape is spoken: its tools, the request body, the URL, the stream's reading."""

    read_tool: tuple[str, str] | None  # (name, path key), None: reads go through the shell
    shell_tool: tuple[str, str, bool]  # (name, command key, argv array?)
    url: Callable[[str], str]
    headers: dict[str, str]
    body: Callable[[str, list[dict[str, Any]], list[dict[str, Any]]], dict[str, Any]]
    parse: Callable[[Iterator[dict[str, Any]]], Answer]
    stub_rereads: bool = False
    # The shape's own fields of caching and parameters, added to a body the session built.
    finish: Callable[[dict[str, Any], Session], dict[str, Any]] | None = None


def now() -> datetime:
    fake = os.environ.get("FAKETIME", "")
    if fake.startswith("@"):
        start = datetime.strptime(fake[1:], "%Y-%m-%d %H:%M:%S")
        return start + timedelta(seconds=time.monotonic() - STARTED)
    return datetime.now()


def tool_specs(shape: Shape, extra: int) -> list[dict[str, Any]]:
    """Tools as (name, description, JSON schema)."""
    specs = []
    if shape.read_tool:
        name, key = shape.read_tool
        specs.append(
            {
                "name": name,
                "description": "Read a file.",
                "schema": {
                    "type": "object",
                    "properties": {key: {"type": "string"}},
                    "required": [key],
                },
            }
        )
    name, key, as_argv = shape.shell_tool
    command = {"type": "array", "items": {"type": "string"}} if as_argv else {"type": "string"}
    specs.append(
        {
            "name": name,
            "description": "Run a shell command.",
            "schema": {"type": "object", "properties": {key: command}, "required": [key]},
        }
    )
    for number in range(extra):
        specs.append(
            {
                "name": f"noop_{number}",
                "description": "Nothing.",
                "schema": {"type": "object", "properties": {}},
            }
        )
    return specs


def sse_events(response: Any) -> Iterator[dict[str, Any]]:
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if line.startswith("data: ") and line != "data: [DONE]":
            yield json.loads(line[len("data: ") :])


def arguments(call: dict[str, Any]) -> str:
    """A call's arguments as sent back: the bytes that came, or the object written again."""
    raw = call.get("raw")
    return raw if isinstance(raw, str) else json.dumps(call["args"])


def cap(text: str) -> str:
    lines = text.splitlines()
    if len(lines) <= HEAD_LINES + TAIL_LINES:
        return text
    elided = len(lines) - HEAD_LINES - TAIL_LINES
    return "\n".join([*lines[:HEAD_LINES], f"[{elided} lines elided]", *lines[-TAIL_LINES:]])


def repaired(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with a synthetic result after each call the next messages do not answer."""
    out: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []
    for m in [*messages, {"role": "end"}]:
        if m["role"] == "tool":
            waiting = [c for c in waiting if c["id"] != m["id"]]
        else:
            out += [
                {"role": "tool", "id": c["id"], "name": c["name"], "text": ABORTED} for c in waiting
            ]
            waiting = list(m.get("calls", [])) if m["role"] == "assistant" else []
        if m["role"] != "end":
            out.append(m)
    return out


class Session:
    """One session of the fake; a fault of its own is a subclass in a file of its own."""

    def __init__(
        self,
        shape: Shape,
        faults: set[str],
        home: Path,
        resume: bool,
        persist: bool = False,
        options: argparse.Namespace | None = None,
    ) -> None:
        self.options = options or argparse.Namespace()
        self.resumed = resume
        self.shape, self.faults = shape, faults
        self.file = home / ".fake" / "session.json"
        self.transcript = home / ".fake" / "transcript.jsonl" if persist else None
        state: dict[str, Any] = {}
        if resume and self.file.is_file():
            state = json.loads(self.file.read_text())
        self.messages: list[dict[str, Any]] = state.get("messages", [])
        if self.transcript is not None:
            self.messages = self.reload() if resume else []
            self.rewrite()
        self.changes = Changes(self, state)
        self.system: str = state.get("system") or self.make_system(0)
        if "date-per-process" in self.faults:  # only the history is kept
            self.system = self.make_system(0)
        self.told: str | None = state.get("told")
        self.reads: dict[str, str] = state.get("reads", {})
        self.requests = int(state.get("requests", 0))
        self.cached: list[int] = []

    def make_system(self, request: int) -> str:
        lines = ["You are a fake harness for the probe's tests.", "Use the tools to do the task."]
        # Where it runs is part of the prompt, as with real harnesses (memory paths, cwd).
        lines += [f"Home: {os.environ['HOME']}", f"Working folder: {os.getcwd()}", *GUIDE]
        if getattr(self, "changes", None) is not None:
            lines += self.changes.in_system()
        if {"date-in-system", "date-per-process"} & set(self.faults):
            lines.append(f"Current date: {now().date().isoformat()}")
        if "rebuilt-prompt" in self.faults:
            lines.append(f"Request number: {request}")
        return "\n".join(lines)

    def reload(self) -> list[dict[str, Any]]:
        """The transcript's messages, cut back to the last turn boundary unless a fault says
        otherwise."""
        assert self.transcript is not None
        if not self.transcript.is_file():
            return []
        lines = self.transcript.read_text().splitlines()
        messages = [json.loads(line) for line in lines if line.strip()]
        if "orphan-call" in self.faults:
            return messages
        if "aborted-result" in self.faults:
            return repaired(messages)
        if "stripped-results" in self.faults:
            messages = [
                {**m, "text": m["text"].strip()} if m["role"] == "tool" else m for m in messages
            ]
        ends = [i for i, m in enumerate(messages) if m["role"] == "assistant" and not m["calls"]]
        return messages[: ends[-1] + 1] if ends else []

    def rewrite(self) -> None:
        assert self.transcript is not None
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(json.dumps(m) + "\n" for m in self.messages)
        partial = self.transcript.with_suffix(".partial")
        partial.write_text(text)
        partial.replace(self.transcript)

    def add(self, message: dict[str, Any]) -> None:
        self.messages.append(message)
        if self.transcript is not None:
            with self.transcript.open("a") as f:
                f.write(json.dumps(message) + "\n")

    def save(self) -> None:
        self.file.parent.mkdir(parents=True, exist_ok=True)
        state = {
            "messages": self.messages,
            "system": self.system,
            "told": self.told,
            "reads": self.reads,
            "requests": self.requests,
            **self.changes.state(),
        }
        self.file.write_text(json.dumps(state))

    def note(self, today: str) -> str:
        """The note that tells the model the date."""
        return f"<session-note>\nToday's date is {today}.\n</session-note>\n\n"

    def user(self, text: str) -> None:
        today = now().date().isoformat()
        others = self.changes.note_lines()
        if others:
            text = "<session-note>\n" + "\n".join(others) + "\n</session-note>\n\n" + text
        dated = {"date-in-system", "date-per-process"} & set(self.faults)
        if not dated and today != self.told:
            text = self.note(today) + text
            self.told = today
        self.add({"role": "user", "text": text})

    def run_tool(self, call: dict[str, Any]) -> str:
        args = call["args"]
        if self.shape.read_tool and call["name"] == self.shape.read_tool[0]:
            path = Path(args[self.shape.read_tool[1]])
            text = path.read_text() if path.is_file() else f"no such file: {path}"
            if self.shape.stub_rereads and self.reads.get(str(path)) == text:
                return f"[{path.name} unchanged since the last read]"
            self.reads[str(path)] = text
            return text
        command = args.get(self.shape.shell_tool[1], "")
        argv = command if isinstance(command, list) else ["bash", "-c", command]
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        output = done.stdout + done.stderr
        return output if "uncapped" in self.faults else cap(output)

    def send(self, base_url: str) -> Answer:
        self.requests += 1
        if "rebuilt-prompt" in self.faults:
            self.system = self.make_system(self.requests)
        messages = [dict(m) for m in self.messages]
        if "rewritten-previous" in self.faults:
            last = max(i for i, m in enumerate(messages) if m["role"] == "user")
            messages[last]["text"] += "\n(Reminder: answer briefly.)"
        messages = self.reasoning_on_the_wire(self.changes.on_the_wire(messages))
        body = self.shape.body(self.system, self.tools(), messages)
        if self.shape.finish is not None:
            body = self.shape.finish(body, self)
        return self.post(base_url, self.changes.body(body))

    def reasoning_on_the_wire(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The messages as sent, their reasoning as it came (a fake of its own changes it)."""
        return messages

    def effort(self) -> str:
        return EFFORTS[self.requests % 2] if "changing-effort" in self.faults else "medium"

    def cache_key(self) -> str:
        return f"fake-run-{os.getpid()}" if "moving-cache-key" in self.faults else "fake-session"

    def tools(self) -> list[dict[str, Any]]:
        """The tools this request offers."""
        tools = tool_specs(self.shape, self.requests if "changing-tools" in self.faults else 0)
        return self.changes.tools(tools)

    def encode(self, body: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
        """A request body's bytes and the headers that say how they are encoded."""
        return json.dumps(body).encode(), {}

    def ask_memory_subagent(self, base_url: str) -> None:
        """The side conversation: its own prompt, its one tool, its own task after the
        conversation so far; its answer is not acted on."""
        task = [*self.messages, {"role": "user", "text": MEMORY_TASK}]
        self.post(base_url, self.shape.body(MEMORY_PROMPT, tool_specs(self.shape, 0)[:1], task))

    def post(self, base_url: str, body: dict[str, Any]) -> Answer:
        data, encoding = self.encode(body)
        request = urllib.request.Request(
            self.shape.url(base_url),
            data=data,
            headers={"Content-Type": "application/json", **self.shape.headers, **encoding},
        )
        with urllib.request.urlopen(request, timeout=60) as response:
            return self.shape.parse(sse_events(response))

    def turn(self, base_url: str, text: str) -> None:
        self.changes.turn_starts()
        if text == "/compact":
            self.changes.compact(base_url)
            return
        if text.startswith("/model "):  # a command of its own: nothing is sent
            self.changes.model = text.split(" ", 1)[1]
            return
        self.user(text)
        for _ in range(20):
            answer = self.send(base_url)
            if answer.cached is not None:
                self.cached.append(answer.cached)
            said = {"role": "assistant", "text": answer.text, "calls": answer.calls}
            self.add({**said, "reasoning": answer.reasoning})
            if not answer.calls:
                if "memory-subagent" in self.faults:
                    self.ask_memory_subagent(base_url)
                return
            for call in answer.calls:
                self.add(
                    {
                        "role": "tool",
                        "id": call["id"],
                        "name": call["name"],
                        "text": self.run_tool(call),
                    }
                )

    def start(self) -> None:
        """Before the first turn of this process."""

    def report(self) -> dict[str, Any]:
        usage = {} if "ignore-usage" in self.faults else {"cached_tokens": sum(self.cached)}
        return {"type": "result", "usage": usage}


def main(
    shape: Shape,
    session_class: type[Session] = Session,
    configure: Callable[[argparse.ArgumentParser], None] | None = None,
) -> int:
    parser = argparse.ArgumentParser()
    if configure is not None:
        configure(parser)
    parser.add_argument("--fault", action="append", default=[], choices=FAULTS)
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--stream-json", action="store_true")
    parser.add_argument("--persist", action="store_true")
    parser.add_argument("--version", action="store_true")
    parser.add_argument("--instructions")
    parser.add_argument("--mcp-config")
    parser.add_argument("--plan", action="store_true")
    # The model from FAKE_MODEL when no flag names one, as a harness that reads it from its
    # environment; --auto refuses --plan beside it, as a harness whose flags exclude each other.
    parser.add_argument("--model", default=os.environ.get("FAKE_MODEL"))
    parser.add_argument("--auto", action="store_true")
    parser.add_argument("--ignored-flag", action="store_true")  # a command the fake ignores
    # One message, or (--messages) every message of the session in one process, as pi takes them.
    parser.add_argument("--messages", action="store_true")
    parser.add_argument("message", nargs="*", default=[])
    args = parser.parse_args()
    if args.auto and args.plan:
        parser.error("--plan cannot stand beside --auto")
    if args.version:
        print("fake-harness 1.0.0")
        return 0
    base_url = os.environ["FAKE_BASE_URL"]
    home = Path(os.environ["HOME"])
    session = session_class(shape, set(args.fault), home, args.resume, args.persist, args)
    session.start()
    if args.stream_json:
        for line in sys.stdin:
            session.turn(base_url, json.loads(line)["message"])
            session.save()
            print(json.dumps(session.report()), flush=True)
        return 0
    for message in args.message if args.messages else [" ".join(args.message)]:
        session.turn(base_url, message)
    session.save()
    report = json.dumps(session.report())
    if os.environ.get("FAKE_USAGE_FILE"):  # like a trajectory file, in the work folder
        # `{pid}` in its name stands for a session id the probe cannot know beforehand.
        usage = Path(os.environ["FAKE_USAGE_FILE"].replace("{pid}", str(os.getpid())))
        usage.parent.mkdir(parents=True, exist_ok=True)
        usage.write_text(report)
    else:
        print(report)
    return 0


def variant_main(
    session_class: type[Session],
    configure: Callable[[argparse.ArgumentParser], None] | None = None,
) -> int:
    """The entry of a fake with one fault of its own: `--shape NAME` picks the API shape (the
    SHAPE of fake_NAME.py), the rest is as for the shape's own fake."""
    at = sys.argv.index("--shape")
    name = sys.argv[at + 1]
    del sys.argv[at : at + 2]
    shape = importlib.import_module(f"fake_{name}").SHAPE
    return main(shape, session_class, configure)
