"""The scripted mock model: a threaded HTTP server on 127.0.0.1 speaking every registered API
shape (`ctxconf/shapes/`), each answered in its own body, events and usage fields.

Each request is answered with the scenario's step for the point of the conversation the request
itself shows: the number of assistant turns it carries, less the number the first request with
tools carried (a harness may open with a canned assistant turn). Nothing else is remembered
between requests, so retries, a session resumed in a new process and second user turns land on
the right step. A request without tools (a title, a summary, a next-speaker check) gets a short
text, or `{"next_speaker": "user"}` when it asks for JSON; so does a side request with tools,
one that ends with a prompt of the harness's own after the loop's history. Usage numbers are
the cache audit's: each answered request is played with the session's earlier ones under a
provider's rules (`cache_session.py`), and a request that provider refuses is answered with its
API's error, as is a body whose tool results do not follow their calls (each shape's `refuse`),
never played.

Each answer names the model the request asked for (or the dated name a profile says the provider
returns for it), carries an id in the provider's form and, where the API has one, the request's
id in its header (`request-id`, `x-request-id`). A request that asks for the provider's cache
diagnostics (Anthropic's `diagnostics`, OpenAI Responses' `comparison_response_id`) gets them as
that provider answers them, from the same played requests that give the usage
(`ctxconf/cache/provider_diagnostics.py`); a malformed ask is the API's 400, never played.

A request that asks for the model's reasoning gets it as its provider gives it (each shape's
`reasoning`), signed under the session's own secret (`ctxconf/shapes/signing.py`); what comes
back is checked as the API checks it: a changed or missing block is its 400, and a block the
provider will not read under Anthropic's `drop_block` is dropped before the request is played.
The log keeps each answer's reasoning beside its reply.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from ctxconf.cache.provider_diagnostics import (
    DiagnosticsAsk,
    DiagnosticsOptions,
    Fingerprints,
    carries,
    diagnostics,
    keeps,
)
from ctxconf.shapes import ApiShape, answers, read_request, route_of, shape_named
from ctxconf.shapes.answers import Answer, Reply, Tokens
from ctxconf.shapes.reasoning import DEFAULT_THINK, ReasoningOptions, Thought, Transformed
from ctxconf.shapes.shape import Refusal
from ctxconf.shapes.signing import Signer
from ctxconf.shapes.wire import Request, Shape, ends_with_own_prompt

from .bodies import Refused, inflate, parse_body, read_raw
from .cache_session import Played, SessionCache, model_in_path, scrubbed_body
from .mapping import map_step
from .scenario import Step
from .tool_map import ToolMap

OUTPUT_TOKENS = 10
SHUTDOWN_POLL = 0.05  # seconds
SECRET_QUERY_KEYS = frozenset({"key", "api_key", "apikey", "access_token"})


@dataclass
class Script:
    """What the mock plays: the steps in order, and how to call tools in this work folder."""

    steps: list[Step]
    workdir: str
    text_tool: str | None = None
    text_command: str | None = None
    # Seconds to hold the answer to a step, so that a harness's clock passes a moment.
    holds: dict[int, float] = field(default_factory=dict)
    # Turns after a crash, by user message: their steps count from the request that brings it.
    rebased: dict[str, int] = field(default_factory=dict)
    # The provider whose cache rules the usage follows; None: the one of the request's shape.
    provider: str | None = None
    # The profile's own tools for the steps, by step kind.
    tool_map: Mapping[str, ToolMap] = field(default_factory=dict)
    # The session's changes the mock makes or signals: files to write before the answer to a
    # step goes out (the instruction file's edit after a turn's last step), the file whose
    # existence tells the probe's MCP server that the first request has come, and the steps that
    # answer a compaction request (sent with or without tools).
    edits: dict[int, tuple[Path, str]] = field(default_factory=dict)
    ready_file: Path | None = None
    compact_steps: frozenset[int] = frozenset()
    # The session's first message: a summary asked for apart, with the transcript pasted into
    # one message, is a compaction's request too when it comes after the turn before it.
    compact_marker: str = ""
    # Seconds the provider's clock passes before a step (a turn's first), none of them waited.
    pauses: dict[int, float] = field(default_factory=dict)
    # The scenario's user messages: a request that ends with a prompt of the harness's own after
    # a history holding them is a side request (a title, a summary) and plays no step.
    said: tuple[str, ...] = ()
    # The name the provider answers with for a model asked for by another (a dated one).
    served_models: Mapping[str, str] = field(default_factory=dict)
    # How the provider's own cache diagnostics are given, where a request asks for them.
    diagnostics: DiagnosticsOptions = field(default_factory=DiagnosticsOptions)
    # How the model reasons where a request asks for it.
    reasoning: ReasoningOptions = field(default_factory=ReasoningOptions)
    # Seconds between two events of a streamed answer, as a provider paces its tokens (the
    # first goes out at once); none: the whole stream at once.
    event_gap: float = 0.0


def redact_path(path: str) -> str:
    """The path with every secret of its query replaced, so a log never holds a key."""
    parts = urlsplit(path)
    if not parts.query:
        return path
    query = [
        (k, "REDACTED" if k.lower() in SECRET_QUERY_KEYS else v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
    ]
    return f"{parts.path}?{urlencode(query)}"


def route(method: str, path: str) -> tuple[str, Shape | None]:
    """(what is asked, the API shape) for a method and path; ("", None) for an unknown one."""
    base = urlsplit(path).path.rstrip("/")
    if method == "GET" and base.endswith("/models"):
        return "models", None
    found = route_of(base) if method == "POST" else None
    return ("", None) if found is None else found


class MockModel:
    """The state one session shares across its requests, and the log they are recorded in."""

    def __init__(
        self,
        script: Script,
        log: Path,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.script = script
        self.sleep = sleep  # how a paced stream waits between its events
        self.log = log
        self.lock = threading.Lock()
        self.baseline: int | None = None
        self.cache = SessionCache(script.provider, clock)
        self.count = 0
        self.answered: set[int] = set()
        self.answered_changed = threading.Condition(self.lock)
        self.rebase_from: dict[str, int] = {}
        self.paused: set[int] = set()
        self.fingerprints = Fingerprints(script.diagnostics.retention)
        self.signer = Signer()  # the session's own: a signature another session made fails

    def served_model(self, body: Mapping[str, Any], path: str) -> str:
        """The model an answer names: the one asked for (in the body, or Gemini's path), or the
        name the provider gives it."""
        asked = body.get("model")
        name = asked if isinstance(asked, str) and asked else model_in_path(path)
        if not name:
            return answers.MODEL
        return self.script.served_models.get(name, name)

    def diagnose(self, ask: DiagnosticsAsk | None, played: Played, answer_id: str) -> Any:
        """(whether the answer carries the field, its value), the fingerprint kept where the
        provider keeps one."""
        options = self.script.diagnostics
        if ask is None:
            return False, None
        request = played.request
        with self.lock:
            earlier = None
            if ask.against is not None:
                earlier = self.fingerprints.find(ask.against, request.time)
            if keeps(ask, options):
                self.fingerprints.keep(answer_id, request)
        if not carries(ask, options):
            return False, None
        return True, diagnostics(ask, earlier, request, options)

    def pause_before(self, step: int | None) -> None:
        """The first request of a turn that pauses moves the cache's clock on, once."""
        if step is None:
            return
        seconds = self.script.pauses.get(step)
        with self.lock:
            if not seconds or step in self.paused:
                return
            self.paused.add(step)
        self.cache.advance(seconds)

    def step_of(self, request: Request) -> int | None:
        if not request.tools:
            return self.compaction_step(request)
        with self.lock:
            if self.baseline is None:
                self.baseline = request.assistant_turns
            for user, first_step in self.script.rebased.items():
                if user in request.last_user_text:
                    start = self.rebase_from.setdefault(user, request.assistant_turns)
                    return first_step + request.assistant_turns - start
            step = request.assistant_turns - self.baseline
            compacting = self._compacting(step)
            if compacting is not None:
                return compacting
            return None if ends_with_own_prompt(request, self.script.said) else step

    def _compacting(self, step: int) -> int | None:
        """The compaction's step for a request that comes after the turn before it was answered
        and before the next turn's message: a harness may leave out the last answer, or put its
        own prompt on the last message, so the count of assistant turns cannot tell."""
        for due in self.script.compact_steps:
            if due - 1 in self.answered and not self.rebase_from and step <= due:
                return due
        return None

    def compaction_step(self, request: Request) -> int | None:
        """A request without tools is answered by a step only when it is a compaction's: it
        carries the history up to the compaction turn (a summary asked for apart)."""
        with self.lock:
            if self.baseline is None or not self.script.compact_steps:
                return None
            step = request.assistant_turns - self.baseline
            if step in self.script.compact_steps:
                return step
            marker = self.script.compact_marker
            for due in self.script.compact_steps:
                pasted = marker and any(marker in text for text in request.user_texts)
                if pasted and due - 1 in self.answered and not self.rebase_from:
                    return due
            return None

    def edit_before(self, step: int | None) -> str | None:
        """Make the edit due before `step`'s answer goes out, once; the file's name, if any."""
        if step is None:
            return None
        with self.lock:
            edit = self.script.edits.pop(step, None)
        if edit is None:
            return None
        path, text = edit
        path.write_text(text, encoding="utf-8")
        return path.name

    def signal_first(self) -> None:
        ready = self.script.ready_file
        if ready is not None and not ready.exists():
            ready.write_text("", encoding="utf-8")

    def wait_answered(self, step: int, timeout: float) -> bool:
        """Whether the mock has answered `step`, waiting up to `timeout` seconds for it."""
        with self.answered_changed:
            return self.answered_changed.wait_for(lambda: step in self.answered, timeout)

    def mark_answered(self, step: int) -> None:
        with self.answered_changed:
            self.answered.add(step)
            self.answered_changed.notify_all()

    def reply(self, request: Request, step: int | None) -> Reply:
        if step is None:
            return Reply(text='{"next_speaker": "user"}' if request.wants_json else "Probe session")
        steps = self.script.steps
        if not 0 <= step < len(steps):
            return Reply(text="Done.")
        call_id = f"call_probe_{step}"
        script = self.script
        return map_step(
            steps[step],
            request.tools,
            script.workdir,
            call_id,
            script.text_tool,
            script.text_command,
            script.tool_map,
        )

    def thought(
        self, spoken: ApiShape, body: Mapping[str, Any], step: int | None, reply: Reply
    ) -> Thought | None:
        """The model's reasoning before `reply`, signed, where the request asks for it: the
        step's `think` (or a default text), redacted where the step says."""
        way = spoken.reasoning
        asked = way.asked(body, self.script.reasoning) if way is not None else None
        if way is None or asked is None:
            return None
        steps = self.script.steps
        scripted = steps[step] if step is not None and 0 <= step < len(steps) else None
        text = scripted.think if scripted is not None and scripted.think else DEFAULT_THINK
        redacted = scripted is not None and scripted.redacted and way.redacts
        calls = tuple((c.tool, c.arguments) for c in reply.calls)
        return way.sign(Thought(text, asked, redacted), body, calls, self.signer)

    def record(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.count += 1
            entry = {"n": self.count, "time": time.time(), **entry}
            with self.log.open("a", encoding="utf-8") as f:
                f.write(json.dumps(entry, ensure_ascii=False) + "\n")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Each event of a stream goes out as it is written, as a provider's do: with Nagle's
    # algorithm a small write waits for the client's delayed ACK of the one before (40 ms).
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # a harness's traffic is the log
        return

    def _send_json(self, status: int, data: Any, headers: Mapping[str, str] | None = None) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def _send_events(self, events: list[answers.Event], headers: Mapping[str, str]) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        model = self.server.model
        for n, event in enumerate(events):
            if n and model.script.event_gap > 0:
                model.sleep(model.script.event_gap)
            data = answers.encode(event)
            self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")

    def do_GET(self) -> None:
        kind, _ = route("GET", self.path)
        self.server.model.record({"method": "GET", "path": redact_path(self.path), "shape": None})
        if kind == "models":
            model = {
                "id": answers.MODEL,
                "object": "model",
                "type": "model",
                "display_name": answers.MODEL,
            }
            self._send_json(200, {"object": "list", "data": [model], "has_more": False})
        else:
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    def _refuse(self, entry: dict[str, Any], status: int, reason: str) -> None:
        """A 4xx (or 500) the harness can read, and a line in the log that the checks count."""
        if entry["shape"] is not None:
            self.server.model.record(
                {**entry, "kind": "refused", "status": status, "reason": reason}
            )
        self.close_connection = True  # the rest of what it sent is never read
        self._send_json(status, {"error": {"message": reason, "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        kind, shape = route("POST", self.path)
        entry: dict[str, Any] = {"method": "POST", "path": redact_path(self.path), "shape": shape}
        try:
            raw = read_raw(self.rfile, self.headers)
            # The bytes as they came, before any decoding: what a proxy in front forwarded.
            entry["sha256"] = hashlib.sha256(raw).hexdigest()
            body = parse_body(inflate(raw, self.headers.get("Content-Encoding", "")))
        except Refused as refused:
            self._refuse(entry, refused.status, refused.reason)
            return
        except OSError as e:
            self._refuse(entry, 400, f"the body could not be read: {e}")
            return
        if shape is None or not isinstance(body, dict):
            self.server.model.record({**entry, "body": body})
            self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})
            return
        headers = list(self.headers.items())
        body = scrubbed_body(body, headers)
        try:
            self._answer(kind, shape, entry, body, headers)
        except OSError:
            raise  # the harness went away mid-answer: nothing to tell it
        except Exception as e:  # a body shaped unlike any seen must not print a traceback
            self._refuse(entry, 500, f"the mock could not answer it: {type(e).__name__}: {e}")

    def _answer(
        self,
        kind: str,
        shape: Shape,
        entry: dict[str, Any],
        body: dict[str, Any],
        headers: list[tuple[str, str]],
    ) -> None:
        spoken = shape_named(shape)
        named = _request_header(spoken)
        request = spoken.parse(body, kind == "stream")
        if kind == "count" and spoken.count is not None:
            total = read_request(shape, body).tokens
            self.server.model.record({**entry, "kind": "count", "body": body})
            self._send_json(200, spoken.count(total), named)
            return
        # The API takes no history whose results do not follow calls, nor a malformed ask for
        # its diagnostics: either is its 400, and the request is never played.
        asked = spoken.diagnostics(body, headers) if spoken.diagnostics is not None else None
        refusal = asked if isinstance(asked, Refusal) else spoken.refuse(body)
        if refusal is not None:
            self.server.model.record(
                {
                    **entry,
                    "kind": "api-error",
                    "body": body,
                    "refused": refusal.message,
                    "status": refusal.status,
                }
            )
            self._send_json(refusal.status, dict(refusal.body), named)
            return
        ask = asked if isinstance(asked, DiagnosticsAsk) else None
        model = self.server.model
        # The reasoning sent back, checked as the API checks it: its 400, or the body as the
        # provider reads it once it dropped the blocks it will not take.
        transformations = None
        way = spoken.reasoning
        if way is not None:
            served = model.served_model(body, self.path)
            checked = way.check(body, headers, served, model.signer, model.script.reasoning)
            if isinstance(checked, Refusal):
                self.server.model.record(
                    {
                        **entry,
                        "kind": "api-error",
                        "body": body,
                        "refused": checked.message,
                        "status": checked.status,
                        "reasoning": True,
                    }
                )
                self._send_json(checked.status, dict(checked.body), named)
                return
            if isinstance(checked, Transformed):
                entry = {**entry, "transformations": list(checked.notes), "sent": body}
                body = dict(checked.body)
                transformations = checked.notes
        step = model.step_of(request)
        model.pause_before(step)
        played = model.cache.play(shape, body, headers, self.path)
        error, figures = played.outcome.error, played.outcome.figures
        if error is not None or figures is None:
            self.server.model.record(
                {
                    **entry,
                    # The provider's own answer, not the mock failing to read the request.
                    "kind": "api-error",
                    "body": body,
                    "refused": error.message if error is not None else "",
                    "cache": played.record(),
                }
            )
            status = error.status if error is not None else 400
            self._send_json(status, dict(error.body) if error is not None else {}, named)
            return
        tokens = Tokens(
            figures.input_total,
            figures.cache_read,
            OUTPUT_TOKENS,
            figures.cache_write,
            figures.cache_write_1h,
        )
        reply = model.reply(request, step)
        thought = model.thought(spoken, body, step, reply)
        answer_id = spoken.ids.answer()
        diagnosed, found = model.diagnose(ask, played, answer_id)
        answer = Answer(
            reply,
            tokens,
            answer_id,
            int(time.time()),
            model.served_model(body, self.path),
            found,
            diagnosed,
            thought,
            transformations,
        )
        if step is not None:
            model.signal_first()
        edited = model.edit_before(step)
        if edited is not None:
            entry = {**entry, "edited": edited}
        if step is not None and step in model.script.compact_steps:
            entry = {**entry, "compaction": True}
        if diagnosed:
            entry = {**entry, "diagnostics": found}
        self.server.model.record(
            {
                **entry,
                "kind": "answer",
                "body": body,
                "step": step,
                "reply": _logged(reply),
                **_thought_logged(thought),
                "answer": {"id": answer.id, "model": answer.model, **named},
                "usage": {
                    "input_total": tokens.input_total,
                    "cached": tokens.cached,
                    "written": tokens.written,
                    "written_1h": tokens.written_1h,
                    "output": tokens.output,
                },
                "cache": played.record(),
            }
        )
        hold = self.server.model.script.holds.get(step) if step is not None else None
        if hold:
            time.sleep(hold)
        if request.stream:
            self._send_events(spoken.events(answer, request.include_usage), named)
        else:
            self._send_json(200, spoken.body(answer), named)
        if step is not None:
            self.server.model.mark_answered(step)


def _request_header(shape: ApiShape) -> dict[str, str]:
    """The header naming the request, with a new id, where the API sends one."""
    ids = shape.ids
    if ids.request_header is None or ids.request is None:
        return {}
    return {ids.request_header: ids.request()}


def _logged(reply: Reply) -> dict[str, Any]:
    """The reply as the log keeps it: the first call's fields, as the checks read them, and
    every call where there are several."""
    logged: dict[str, Any] = {"text": reply.text, "tool": reply.tool, "arguments": reply.arguments}
    if reply.more:
        logged["calls"] = [
            {"tool": c.tool, "arguments": c.arguments, "id": c.call_id} for c in reply.calls
        ]
    return logged


def _thought_logged(thought: Thought | None) -> dict[str, Any]:
    """The reasoning an answer carried, as the checks compare it with what comes back."""
    if thought is None:
        return {}
    logged = {"text": thought.text, "redacted": thought.redacted}
    logged.update(signature=thought.signature, sealed=thought.sealed)
    return {"thought": logged}


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, model: MockModel) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.model = model

    def handle_error(self, request: Any, client_address: Any) -> None:
        return  # a connection the harness dropped is its own affair, not a traceback here


class MockServer:
    """The mock, started on 127.0.0.1 on a free port; use as a context manager."""

    def __init__(
        self,
        script: Script,
        log: Path,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """`clock` gives the times the cache rules see, `sleep` waits between the events of a
        paced stream (a test gives its own of each)."""
        self.model = MockModel(script, log, clock, sleep)
        self._server = _Server(self.model)
        # A short poll, so that a session's mock stops at once rather than in half a second.
        serve = self._server.serve_forever
        self._thread = threading.Thread(target=serve, args=(SHUTDOWN_POLL,), daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> MockServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def read_log(log: Path, on_bad: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """The recorded requests in order."""
    entries: list[dict[str, Any]] = []
    if not log.exists():
        return entries
    for number, line in enumerate(log.read_text(encoding="utf-8").splitlines(), 1):
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            if on_bad:
                on_bad(number)
    return entries


__all__ = ["MockModel", "MockServer", "Script", "read_log", "redact_path", "route"]
