"""The prefix every request starts with: one system prompt per session, a fixed tool list, and
what changes mid-session sent as a `<session-note>` on the person's next message.

A `PrefixSession` is one conversation. The harness tells it what happens (a message from the
person, a changed date or mode, a tool call, a compaction, a model switch, a provider response,
the model's answer) and sends what it returns: each request's system prompt, tool names and new
user message, or its whole body for a provider, with the cache marks, parameters and key and the
model's answers with their reasoning as they came (`body.py`); each tool call's answer; each
response's cached-token numbers.

    session = PrefixSession(model="m", date="2026-11-04", mode="code", tools=[Tool("read")])
    request = session.user("Fix the flaky test.")   # request.system, request.tools, request.message
    session.set_date("2026-11-05")                  # midnight: the system prompt stays as it is
    request = session.user("Go on.")                # ... and the message carries the new date
    body = session.body("anthropic")                # that request as the provider's body, marked

The system prompt is made when the first request is built, after a compaction and at a model
switch, and is resent byte for byte in between; nothing in it tells the time.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..texts import Texts
from .body import (
    Answer,
    Message,
    Params,
    Prompt,
    Result,
    Results,
    answer_calls,
    canonical_body,
    read_answer,
    request_body,
    without_reasoning,
)
from .config import PrefixConfig
from .usage import Usage, normalise_usage


@dataclass(frozen=True)
class Tool:
    """A tool of the harness; one that `requires` a mode is offered in every mode all the same."""

    name: str
    requires: str | None = None


@dataclass(frozen=True)
class McpServer:
    """An MCP server of the session's configuration, ready `ready_ms` after the session starts."""

    server: str
    ready_ms: int
    tools: tuple[str, ...]
    instructions: str = ""


@dataclass(frozen=True)
class Request:
    """What one request carries that this area decides."""

    system_number: int  # the system prompt's number, by first appearance in the session
    system: str
    tools: tuple[str, ...]
    message: str  # the new user message as sent, its note included; or the results shown
    results: bool = False  # the request answers the model's calls: `message` shows the results

    def render(self, texts: Texts) -> str:
        """The conformance text of the request."""
        tools = texts.render("tools_separator").join(self.tools) or texts.render("no_tools")
        if self.results:
            return texts.render(
                "results_request", system=self.system_number, tools=tools, results=self.message
            )
        return texts.render("request", system=self.system_number, tools=tools, message=self.message)


def _newest_sent(history: Sequence[Message]) -> int | None:
    """The newest message the harness wrote (an answer goes back as it came, unmarked)."""
    return next(
        (i for i in range(len(history) - 1, -1, -1) if not isinstance(history[i], Answer)),
        None,
    )


# The date that names a version of a model: claude-haiku-4-5-20251001, gpt-5-2025-08-07.
_DATED = re.compile(r"[0-9]{8}|[0-9]{4}-[0-9]{2}-[0-9]{2}")

# Keys of what the model is told; files and MCP servers have one key each.
_DATE, _MODE, _PERSONALITY, _PLAN = "date", "mode", "personality", "plan"
_FILE, _MCP = "file\0", "mcp\0"


class PrefixSession:
    """The prefix state of one conversation: prompts made, tools offered, what the model knows."""

    def __init__(
        self,
        config: PrefixConfig | None = None,
        *,
        model: str,
        date: str,
        mode: str,
        tools: Sequence[Tool],
        personality: str | None = None,
        files: Iterable[tuple[str, str]] = (),
        mcp: Sequence[McpServer] = (),
        base: str = "",
        params: Params | None = None,
        session: str | None = None,
    ) -> None:
        self.config = config if config is not None else PrefixConfig.load()
        self._texts = self.config.texts
        self._notes = self.config.notes
        self._base = base
        self.model = model
        self._date = date
        self._mode = mode
        self._personality = personality
        self._files: dict[str, str] = dict(files)  # memory and instruction files, in order
        self._plan: str | None = None
        self._builtin = tuple(tools)
        self._requires = {tool.name: tool.requires for tool in tools}
        self._servers = tuple(mcp)
        self._connected: set[str] = set()
        self._withdrawn: set[str] = set()
        self._system: str | None = None  # None until the first request is built
        self._tools: tuple[str, ...] = ()
        self._offered: tuple[str, ...] = ()  # the tools of the last request: what the model saw
        self._numbers: dict[str, int] = {}
        # rule: pfx.note.date
        self._told: dict[str, str | None] = {}  # what the model was last told of each item
        # The messages as sent since the last compaction: texts, the model's answers, results.
        self._history: list[Message] = []
        self._wrapping_up = False
        # The cache parameters asked for, made at the next making, and those made.
        self._wanted = self._params = params if params is not None else Params()
        # rule: pfx.cache.key
        # One key for the session, from its id: a restart, a compaction or a switch keeps it.
        self._key = None if session is None else self._texts.render("cache_key", session=session)
        self._latest: Prompt | None = None  # the latest request, as the cache reads it
        self._usage: list[Usage] = []

    # -- what happens in the session -------------------------------------------------------

    def user(self, text: str) -> Request:
        """The person's message, with a note of whatever changed since the model was told."""
        self._wrapping_up = False
        return self._send(text, person=True)

    def set_date(self, date: str) -> None:
        self._date = date

    def set_mode(self, mode: str) -> None:
        self._mode = mode

    def set_personality(self, personality: str) -> None:
        self._personality = personality

    def edit_file(self, path: str, content: str) -> None:
        """A memory or instruction file as it now reads; "" when emptied or removed."""
        self._files[path] = content

    def edit_plan(self, plan: str) -> None:
        """The plan as the person edited it."""
        self._plan = plan

    def set_params(self, changes: Mapping[str, Any]) -> None:
        """Other cache parameters (`tool_choice`, `effort`, `thinking`), sent from the next
        making on."""
        # rule: pfx.cache.params-wait
        self._wanted = self._wanted.updated(changes)

    def withdraw(self, tools: Iterable[str]) -> None:
        """Tools that can no longer run: still offered until the tool list is made again."""
        known = {tool.name for tool in self._builtin} | {
            name for server in self._servers for name in server.tools
        }
        for name in tools:
            if name not in known:
                raise ValueError(f"no tool {name!r} in this session")
            # rule: pfx.tools.withdrawn
            # rule: pfx.tools.withdrawn-listed
            self._withdrawn.add(name)

    def switch_model(self, model: str) -> None:
        """Another model: the cache is lost anyway, so the prompt and tools are made again."""
        # rule: pfx.system.switch-same-model
        if model == self.model:
            return
        self.model = model
        # rule: pfx.system.switch
        if self._system is not None:
            self._make_prompt()

    def restart(self) -> None:
        """The harness stopped and loaded this session again: the prompt and tool list it made,
        and what the model was told, stand; a change while it was stopped is a note."""
        # rule: pfx.system.load
        return

    def idle(self, minutes: int) -> None:
        """A pause of `minutes` with nothing sent: what was sent stays as it was, however long
        the pause."""
        # rule: pfx.reasoning.idle
        return

    def answer(
        self, provider: str, body: Mapping[str, Any], results: Sequence[str] = ()
    ) -> Request | None:
        """The model's answer to the latest request, its provider's response body; kept as it
        came. When it calls tools, `results` holds what each call's tool answers when it runs,
        and the answers are sent as the next request (None: no calls, nothing sent)."""
        if self._latest is None or not self._history:
            raise ValueError("an answer follows a request whose messages the history holds")
        if isinstance(self._history[-1], Answer):
            raise ValueError("the model has answered the latest request already")
        answer = read_answer(provider, body)
        calls = answer_calls(answer)
        if len(results) != len(calls):
            raise ValueError(f"the answer makes {len(calls)} calls, and {len(results)} results")
        # rule: pfx.reasoning.kept
        # As it came, reasoning and all: whatever comes after, this answer is sent so.
        self._history.append(answer)
        if not calls:
            return None
        answered = tuple(
            Result(call, tool, self.call(tool, result))
            for (call, tool), result in zip(calls, results, strict=True)
        )
        return self._send(Results(answered), person=False)

    def call(self, tool: str, result: str) -> str:
        """The answer to the model's call of `tool`: `result` when it runs, else a refusal."""
        # The model calls from the last request it was sent, whatever was remade since.
        if tool not in self._offered:
            raise ValueError(f"{tool!r} is not offered in this session's last request")
        t = self._texts
        # rule: pfx.wrap.no-call
        # rule: pfx.wrap.refused-first
        if self._wrapping_up:
            return t.render("wrap_up_refused")
        # rule: pfx.tools.withdrawn
        # rule: pfx.tools.withdrawn-first
        if tool in self._withdrawn:
            return t.render("withdrawn", tool=tool)
        requires = self._requires.get(tool)
        # rule: pfx.tools.requires
        # rule: pfx.tools.requires-any-mode
        if requires is not None and requires != self._mode:
            return t.render("unavailable", tool=tool, requires=requires, mode=self._mode)
        return result

    def wrap_up(self) -> Request:
        """The last request of a task: the same prompt and tools, and no call runs after it."""
        self._wrapping_up = True
        # rule: pfx.wrap.request
        # rule: pfx.wrap.no-note
        return self._send(self._texts.render("wrap_up"), person=False)

    def compact(self) -> Request:
        """Ask for the summary as the next turn; then start the history over from it."""
        # rule: pfx.compact.turn
        # rule: pfx.compact.no-note
        request = self._send(self._texts.render("compact_request"), person=False)
        self._history.clear()
        # A wrap-up lasts until the person's next message, through a compaction too.
        # rule: pfx.wrap.through-compaction
        # The prompt and tools are made now, not when the next request is built.
        # rule: pfx.compact.made-at-once
        self._make_prompt()
        # The notes went with the history: what the new prompt does not hold is told again.
        # rule: pfx.compact.after
        self._told.pop(_DATE, None)
        # rule: pfx.compact.plan-told-again
        self._told.pop(_PLAN, None)
        return request

    def response(self, provider: str, body_or_events: object, *, stream: bool) -> Usage:
        """Record the cached-token numbers of the response to the latest request."""
        usage = normalise_usage(provider, body_or_events, stream)
        self._usage.append(usage)
        return usage

    # -- what the session shows ------------------------------------------------------------

    def body(self, provider: str) -> str:
        """The latest request as `provider`'s body, its cache marks and parameters."""
        if self._latest is None:
            raise ValueError("no request has been sent in this session")
        return canonical_body(request_body(provider, self._latest, self.config.cache))

    def aside_body(self, provider: str, text: str) -> str:
        """A side request (a title, a summary, a question asked aside) as `provider`'s body: the
        loop's prefix and history, then its own prompt; the history does not keep it."""
        if self._system is None:
            raise ValueError("a side request comes after the session's first request")
        # It is a message of its own: the loop's next one would drop what it drops.
        history = tuple(self._closed())
        # A side request sends the prompt as made: if no request has yet, it numbers it.
        number = self._numbers.setdefault(self._system, 1 + len(self._numbers))
        # rule: pfx.cache.aside
        # Marked where the shared part ends: its own prompt is never sent again.
        prompt = Prompt(
            self.model,
            self._texts.render("body_system", system=number),
            self._tools,
            (*history, text),
            self._params,
            self._key,
            _newest_sent(history),
        )
        return canonical_body(request_body(provider, prompt, self.config.cache))

    def usage_table(self) -> str:
        """Every response's numbers, one row per request."""
        t = self._texts
        if not self._usage:
            return t.render("usage_none")

        def shown(value: int | None) -> str:
            # rule: pfx.usage.shown
            return t.render("not_reported") if value is None else str(value)

        # rule: pfx.usage.shown
        # rule: pfx.usage.rows-by-response
        return "\n".join(
            t.render(
                "usage_row",
                request=number,
                input_total=shown(usage.input_total),
                cache_read=shown(usage.cache_read),
                cache_write=shown(usage.cache_write),
                uncached=shown(usage.uncached),
            )
            for number, usage in enumerate(self._usage, start=1)
        )

    def history(self) -> str:
        """The user messages the history holds, each exactly as it was sent."""
        t = self._texts
        texts = [message for message in self._history if isinstance(message, str)]
        if not texts:
            return t.render("history_empty")
        return "\n".join(
            t.render("history_entry", number=number, message=message)
            for number, message in enumerate(texts, start=1)
        )

    @property
    def usage(self) -> tuple[Usage, ...]:
        return tuple(self._usage)

    # -- helpers ---------------------------------------------------------------------------

    def _closed(self) -> list[Message]:
        """The history as a message that is not results sends it: a provider that reads only
        the last turn's reasoning drops the reasoning of every answer before that message."""
        # rule: pfx.reasoning.last-turn-only
        if self._last_turn_only():
            return [without_reasoning(m) if isinstance(m, Answer) else m for m in self._history]
        return list(self._history)

    def _last_turn_only(self) -> bool:
        """Whether the model's provider drops earlier turns' reasoning: loop.json lists it, by
        its name or its name and a date (a dated version); any other model keeps it."""
        return any(
            self.model == name or _DATED.fullmatch(self.model.removeprefix(name + "-")) is not None
            for name in self.config.last_turn_only
            if self.model.startswith(name)
        )

    def _send(self, text: str | Results, *, person: bool) -> Request:
        # rule: pfx.system.first-request
        first = self._system is None
        if first:
            # The first request waits for the MCP servers, up to mcp_wait_ms.
            wait = self.config.mcp_wait_ms
            # rule: pfx.tools.mcp-wait
            # rule: pfx.tools.mcp-wait-inclusive
            self._connected = {s.server for s in self._servers if s.ready_ms <= wait}
            self._make_prompt()
        # rule: pfx.system.once
        assert self._system is not None
        if isinstance(text, Results):
            # The calls' answers: the same turn goes on, and its reasoning with it.
            self._history.append(text)
            return self._request(text, self._results_text(text))
        self._history = self._closed()
        message = text
        if person:
            lines = self._note_lines()
            if lines:
                note = self._texts.render("session_note", lines="\n".join(lines))
                # rule: pfx.note.form
                message = self._texts.render("message_with_note", note=note, text=text)
        # rule: pfx.note.stored
        self._history.append(message)
        request = self._request(message, message)
        if first:
            # A server later than the wait connects after the first request has gone.
            # rule: pfx.tools.fixed
            self._connected = {s.server for s in self._servers}
        return request

    def _request(self, message: Message, shown: str) -> Request:
        """The request that sends the history, `message` its newest, as made now."""
        assert self._system is not None
        # rule: pfx.system.number-returns
        number = self._numbers.setdefault(self._system, len(self._numbers) + 1)
        request = Request(
            number, self._system, self._tools, shown, results=isinstance(message, Results)
        )
        self._offered = self._tools
        history = tuple(self._history)
        self._latest = Prompt(
            self.model,
            self._texts.render("body_system", system=number),
            self._tools,
            history,
            self._params,
            self._key,
            len(history) - 1,
        )
        return request

    def _results_text(self, results: Results) -> str:
        return "\n".join(
            self._texts.render("result_entry", tool=r.tool, result=r.text) for r in results.results
        )

    def _make_prompt(self) -> None:
        """The system prompt and tool list, from the state now; the model is told all it holds."""
        t = self._texts
        # rule: pfx.system.no-clock
        parts = [self._base] if self._base else []
        # rule: pfx.system.holds
        # rule: pfx.system.no-model
        parts.append(t.render("system_mode", mode=self._mode))
        if self._personality is not None:
            parts.append(t.render("system_personality", personality=self._personality))
        for path, content in self._files.items():
            if content:
                parts.append(t.render("system_file", path=path, content=content))
        servers = [s for s in self._servers if s.server in self._connected]
        for server in servers:
            if server.instructions:
                parts.append(
                    t.render("system_mcp", server=server.server, instructions=server.instructions)
                )
        # rule: pfx.system.number
        self._system = t.render("system_separator").join(parts)
        offered = [tool.name for tool in self._builtin]
        offered += [name for server in servers for name in server.tools]
        # rule: pfx.tools.requires
        self._tools = tuple(name for name in offered if name not in self._withdrawn)
        # rule: pfx.cache.params
        # Made with the prompt: every request until the next making carries them.
        self._params = self._wanted
        self._told.update(self._prompt_items())

    def _prompt_items(self) -> dict[str, str | None]:
        """The items a system prompt made now holds."""
        items: dict[str, str | None] = {_MODE: self._mode, _PERSONALITY: self._personality}
        items.update({_FILE + path: content for path, content in self._files.items()})
        items.update(
            {_MCP + s.server: s.instructions for s in self._servers if s.server in self._connected}
        )
        return items

    def _current(self) -> list[tuple[str, str | None]]:
        """Every item the model is told of, in the order a note gives them."""
        items: list[tuple[str, str | None]] = [
            (_DATE, self._date),
            (_MODE, self._mode),
            (_PERSONALITY, self._personality),
        ]
        items += [(_FILE + path, content) for path, content in self._files.items()]
        items.append((_PLAN, self._plan))
        items += [
            (_MCP + s.server, s.instructions) for s in self._servers if s.server in self._connected
        ]
        return items

    def _note_lines(self) -> list[str]:
        """A line for each item that differs from what the model was last told; now it is told."""
        n = self._notes
        lines: list[str] = []
        # rule: pfx.note.order
        # rule: pfx.note.order-fixed
        for key, value in self._current():
            # A file or server never seen before counts as empty.
            # rule: pfx.note.file-new-empty
            # rule: pfx.note.mcp-no-instructions
            empty = "" if key.startswith((_FILE, _MCP)) else None
            told = self._told.get(key, empty)
            # rule: pfx.note.undone
            if value == told:
                continue
            # rule: pfx.note.differs
            self._told[key] = value
            if value is None:
                continue
            if key == _DATE:
                lines.append(n.render("date", date=value))
            elif key == _MODE:
                # rule: pfx.note.mode
                # rule: pfx.note.plan-ended
                # rule: pfx.note.plan-ended-told
                if told == self.config.plan_mode:
                    lines.append(n.render("plan_ended", mode=value))
                else:
                    lines.append(n.render("mode", mode=value))
            elif key == _PERSONALITY:
                # rule: pfx.note.personality
                lines.append(n.render("personal", personality=value))
            elif key == _PLAN:
                # rule: pfx.note.plan-edit
                lines.append(n.render("plan_own", plan=value))
            elif key.startswith(_FILE):
                path = key[len(_FILE) :]
                # rule: pfx.note.file-empty
                # rule: pfx.note.file
                if value:
                    lines.append(n.render("file", path=path, content=value))
                else:
                    lines.append(n.render("empty", path=path))
            elif value:
                server = key[len(_MCP) :]
                # rule: pfx.note.mcp
                lines.append(n.render("mcp", server=server, instructions=value))
        return lines


# --- conformance -------------------------------------------------------------------------

Step = Mapping[str, Any]


def start_session(config: PrefixConfig, step: Step) -> PrefixSession:
    """A session as a case's `start` step describes it."""
    return PrefixSession(
        config,
        model=step["model"],
        date=step["date"],
        mode=step["mode"],
        tools=[Tool(t["name"], t.get("requires")) for t in step["tools"]],
        personality=step.get("personality"),
        files=[(f["path"], f["content"]) for f in step.get("files", [])],
        mcp=[
            McpServer(s["server"], s["ready_ms"], tuple(s["tools"]), s.get("instructions", ""))
            for s in step.get("mcp", [])
        ],
        params=Params().updated(step.get("params", {})),
        session=step.get("session"),
    )


def _request(session: PrefixSession, request: Request) -> str:
    return request.render(session.config.texts)


def _answered(session: PrefixSession, request: Request | None) -> str:
    # An answer without calls sends nothing.
    return "" if request is None else _request(session, request)


def _silent(action: Callable[[PrefixSession, Step], None]) -> Callable[[PrefixSession, Step], str]:
    # A change sends nothing: its step's text is empty.
    def run(session: PrefixSession, step: Step) -> str:
        action(session, step)
        return ""

    return run


_PARAMS = ("tool_choice", "effort", "thinking")

_OPS: dict[str, Callable[[PrefixSession, Step], str]] = {
    "user": lambda s, st: _request(s, s.user(st["text"])),
    "date": _silent(lambda s, st: s.set_date(st["date"])),
    "mode": _silent(lambda s, st: s.set_mode(st["mode"])),
    "personality": _silent(lambda s, st: s.set_personality(st["personality"])),
    "file": _silent(lambda s, st: s.edit_file(st["path"], st["content"])),
    "plan": _silent(lambda s, st: s.edit_plan(st["plan"])),
    "withdraw": _silent(lambda s, st: s.withdraw(st["tools"])),
    "switch": _silent(lambda s, st: s.switch_model(st["model"])),
    "restart": _silent(lambda s, st: s.restart()),
    "params": _silent(lambda s, st: s.set_params({k: st[k] for k in _PARAMS if k in st})),
    "call": lambda s, st: s.call(st["tool"], st["result"]),
    "answer": lambda s, st: _answered(
        s, s.answer(st["provider"], st["body"], st.get("results", ()))
    ),
    "idle": _silent(lambda s, st: s.idle(st["minutes"])),
    "wrap_up": lambda s, st: _request(s, s.wrap_up()),
    "compact": lambda s, st: _request(s, s.compact()),
    "response": lambda s, st: s.response(
        st["provider"], st["body"], stream=st["stream"]
    ).canonical(),
    "usage": lambda s, st: s.usage_table(),
    "history": lambda s, st: s.history(),
    "request_body": lambda s, st: (
        s.aside_body(st["provider"], st["aside"]) if "aside" in st else s.body(st["provider"])
    ),
}

PREFIX_OPS = frozenset({"start", *_OPS})


def run_prefix_case(case: Mapping[str, Any], loop: Mapping[str, Any]) -> list[str]:
    """The text each step of a `prefix` case shows, in a fresh session; `start` shows ""."""
    return run_prefix_steps(case, PrefixConfig.from_loop(loop))


def run_prefix_steps(case: Mapping[str, Any], config: PrefixConfig) -> list[str]:
    """The text each step of a `prefix` case shows, with the area's config already read."""
    steps: Sequence[Step] = case["steps"]
    if not steps or steps[0].get("op") != "start":
        raise ValueError("a prefix case starts with one start step")
    session = start_session(config, steps[0])
    outputs = [""]
    for step in steps[1:]:
        if step["op"] == "start":
            raise ValueError("a prefix case has only one start step")
        outputs.append(_OPS[step["op"]](session, step))
    return outputs


__all__ = [
    "PREFIX_OPS",
    "McpServer",
    "PrefixSession",
    "Request",
    "Tool",
    "run_prefix_case",
    "run_prefix_steps",
    "start_session",
]
