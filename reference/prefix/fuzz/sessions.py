"""Hypothesis strategies for the prefix area: valid sessions that reach every rule.

A prefix session starts with its `start` step, then the person's messages and the changes
between them. The builder keeps what the harness knows (the tools the last request offered,
every tool the session has, whether a request went out) so that every call names an offered
tool, every withdrawal a tool of the session, and every response answers a request."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hypothesis import strategies as st

from ...fuzzing import Case, Draw, only_ops
from ...fuzzing import choice as _choice
from ...fuzzing import maybe as _maybe
from ...fuzzing import optional as _optional

PREFIX_MODELS = ("qwen3-coder-30b", "claude-sonnet", "gpt-5")
PREFIX_DATES = ("2026-11-04", "2026-11-05", "2026-11-06")
PREFIX_MODES = ("code", "plan", "review")
PREFIX_PERSONALITIES = ("terse", "friendly", "pirate")
PREFIX_FILE_PATHS = ("AGENTS.md", ".agent/memory.md", "ü notes.md")
PREFIX_CONTENTS = (
    "",
    "Keep commits small.\n",
    "Run `make test`.\nCI runs on Python 3.10.\n",
    "no final newline",
    "é 😀\r\nline two\u2028",
)
PREFIX_TEXTS = ("Go on.", "Where are we?", "Fix the flaky test.", "é 😀\nsecond line\n")
PREFIX_PLANS = ("1. Add the cache.\n2. Use it in the reader.", "1. Only the tests.\n")
PREFIX_RESULTS = ("", "ok", "3 files\nchanged")
PREFIX_SESSION_IDS = ("0f3a9c", "s-1")
PREFIX_TOOL_CHOICES = ("auto", "none")
PREFIX_EFFORTS = ("low", "medium", "high")
PREFIX_THINKING = (1024, 8192)
_PARAM_VALUES: dict[str, tuple[Any, ...]] = {
    "tool_choice": PREFIX_TOOL_CHOICES,
    "effort": PREFIX_EFFORTS,
    "thinking": PREFIX_THINKING,
}
PREFIX_ASIDES = ("Write a title of at most six words for this conversation.", "Done? yes or no")
PREFIX_BODY_PROVIDERS = ("anthropic", "openai-chat", "openai-responses")
# Harness tools: plan_submit works only in plan mode (prefix.md, pfx.tools.requires).
PREFIX_TOOLS = (
    {"name": "read"},
    {"name": "edit"},
    {"name": "bash"},
    {"name": "plan_submit", "requires": "plan"},
)
# MCP servers of a configuration; ready_ms around context.note.mcp_wait_ms.
_MCP_SERVERS = (
    ("github", ("gh_issue", "gh_pr"), "Use gh_issue for issues."),
    ("docs", ("docs_search",), "Search the docs first.\n"),
    ("quiet", ("quiet_ping",), ""),
)
PREFIX_OPS = (
    "user",
    "date",
    "mode",
    "personality",
    "file",
    "plan",
    "withdraw",
    "switch",
    "call",
    "wrap_up",
    "compact",
    "response",
    "usage",
    "history",
    "params",
    "request_body",
)
PREFIX_OP_WEIGHTS = (8, 2, 3, 2, 2, 2, 1, 1, 4, 1, 2, 4, 1, 1, 1, 2)
_BAD_COUNTS: tuple[object, ...] = (None, 0, -1, "12", 1.5, True, 7, 123456)


@lru_cache(maxsize=1)
def mcp_wait_ms() -> int:
    from ..config import PrefixConfig

    return int(PrefixConfig.load().mcp_wait_ms)


@lru_cache(maxsize=1)
def provider_bodies() -> dict[tuple[str, bool], tuple[Any, ...]]:
    """The real response bodies of the bundled prefix cases, by (provider, stream)."""
    import json

    from ...texts import BUNDLED_SPEC

    path = BUNDLED_SPEC / "conformance" / "prefix.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    bodies: dict[tuple[str, bool], list[Any]] = {}
    for case in document["cases"]:
        for step in case["steps"]:
            if step["op"] == "response":
                found = bodies.setdefault((step["provider"], step["stream"]), [])
                if step["body"] not in found:
                    found.append(step["body"])
    return {key: tuple(found) for key, found in sorted(bodies.items())}


def _count_paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths of every number (and every object member) inside a JSON value."""
    paths: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            paths.append((*at, key))
            paths += _count_paths(item, (*at, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            paths += _count_paths(item, (*at, index))
    return paths


def _perturbed(value: Any, path: tuple[Any, ...], change: object, remove: bool) -> Any:
    """A copy of `value` with the member at `path` removed or set to `change`."""
    if not path:
        return change
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        if remove and not rest:
            return {k: v for k, v in value.items() if k != head}
        return {
            k: (_perturbed(v, rest, change, remove) if k == head else v) for k, v in value.items()
        }
    return [(_perturbed(v, rest, change, remove) if i == head else v) for i, v in enumerate(value)]


@st.composite
def provider_responses(draw: Draw) -> dict[str, Any]:
    """A `response` step: a real body of the bundled cases, its counts now and then removed,
    set to null, negative, not whole, or to another number (to exercise "not reported")."""
    bodies = provider_bodies()
    provider, stream = draw(st.sampled_from(sorted(bodies)))
    body = draw(st.sampled_from(bodies[provider, stream]))
    for _ in range(draw(st.integers(0, 2))):
        paths = [p for p in _count_paths(body) if not isinstance(p[-1], int)]
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        remove = _maybe(draw, 40)
        body = _perturbed(body, path, draw(st.sampled_from(_BAD_COUNTS)), remove)
    return {"op": "response", "provider": provider, "stream": stream, "body": body}


@st.composite
def prefix_starts(draw: Draw) -> dict[str, Any]:
    """A `start` step: model, date, mode and tools, maybe a personality, files, MCP servers."""
    step: dict[str, Any] = {
        "op": "start",
        "model": draw(st.sampled_from(PREFIX_MODELS)),
        "date": draw(st.sampled_from(PREFIX_DATES)),
        "mode": draw(st.sampled_from(PREFIX_MODES)),
        "tools": [dict(tool) for tool in PREFIX_TOOLS[: draw(st.integers(1, len(PREFIX_TOOLS)))]],
    }
    if not _maybe(draw, 80):
        step["tools"] = [dict(PREFIX_TOOLS[-1])] if _maybe(draw, 50) else []
    # Every session has an id, so that any request_body may ask for an OpenAI body.
    step["session"] = draw(st.sampled_from(PREFIX_SESSION_IDS))
    params: dict[str, Any] = {}
    for name, values in _PARAM_VALUES.items():
        value = _optional(draw, st.sampled_from(values), 30)
        if value is not None:
            params[name] = value
    if params:
        step["params"] = params
    personality = _optional(draw, st.sampled_from(PREFIX_PERSONALITIES), 30)
    if personality is not None:
        step["personality"] = personality
    if _maybe(draw, 40):
        paths = draw(
            st.lists(st.sampled_from(PREFIX_FILE_PATHS), min_size=1, max_size=2, unique=True)
        )
        step["files"] = [
            {"path": p, "content": draw(st.sampled_from(PREFIX_CONTENTS))} for p in paths
        ]
    if _maybe(draw, 40):
        wait = mcp_wait_ms()
        servers = []
        for name, tools, instructions in _MCP_SERVERS[: draw(st.integers(1, len(_MCP_SERVERS)))]:
            ready = draw(st.sampled_from((0, wait - 1, wait, wait + 1, wait * 2)))
            server: dict[str, Any] = {"server": name, "ready_ms": ready, "tools": list(tools)}
            if instructions:
                server["instructions"] = instructions
            servers.append(server)
        step["mcp"] = servers
    return step


@dataclass
class _PrefixBuilder:
    """What a harness knows while a prefix session is generated: enough to keep it valid."""

    draw: Draw
    start: dict[str, Any]
    steps: list[dict[str, Any]] = field(default_factory=list)
    requested: bool = False  # a request went out
    offered: tuple[str, ...] = ()  # the tools of the latest request
    listed: tuple[str, ...] = ()  # the tool list as last made
    withdrawn: set[str] = field(default_factory=set)
    model: str = ""
    files: list[str] = field(default_factory=list)
    ops: tuple[tuple[str, ...], tuple[int, ...]] = (PREFIX_OPS, PREFIX_OP_WEIGHTS)

    def __post_init__(self) -> None:
        self.steps.append(self.start)
        self.model = self.start["model"]
        self.files = [f["path"] for f in self.start.get("files", [])]

    def _all_tools(self, *, connected_late: bool) -> list[str]:
        names = [tool["name"] for tool in self.start["tools"]]
        for server in self.start.get("mcp", []):
            if connected_late or server["ready_ms"] <= mcp_wait_ms():
                names += server["tools"]
        return names

    def _make(self, *, first: bool) -> None:
        self.listed = tuple(
            t for t in self._all_tools(connected_late=not first) if t not in self.withdrawn
        )

    def _request(self) -> None:
        if not self.requested:
            self._make(first=True)
            self.requested = True
        self.offered = self.listed

    def step(self) -> None:
        draw = self.draw
        op = _choice(draw, *self.ops)
        step: dict[str, Any] = {"op": op}
        if op == "user":
            step["text"] = draw(st.sampled_from(PREFIX_TEXTS))
            self._request()
        elif op in ("wrap_up", "compact"):
            self._request()
            if op == "compact":
                self._make(first=False)
        elif op == "date":
            step["date"] = draw(st.sampled_from(PREFIX_DATES))
        elif op == "mode":
            step["mode"] = draw(st.sampled_from(PREFIX_MODES))
        elif op == "personality":
            step["personality"] = draw(st.sampled_from(PREFIX_PERSONALITIES))
        elif op == "file":
            known = self.files + [p for p in PREFIX_FILE_PATHS if p not in self.files]
            path = str(draw(st.sampled_from(known)))
            if path not in self.files:
                self.files.append(path)
            step.update(path=path, content=draw(st.sampled_from(PREFIX_CONTENTS)))
        elif op == "plan":
            step["plan"] = draw(st.sampled_from(PREFIX_PLANS))
        elif op == "withdraw":
            every = self._all_tools(connected_late=True)
            if not every:
                return
            names = draw(st.lists(st.sampled_from(every), min_size=1, max_size=2, unique=True))
            self.withdrawn.update(names)
            step["tools"] = names
        elif op == "switch":
            model = str(draw(st.sampled_from(PREFIX_MODELS)))
            if model != self.model and self.requested:
                self._make(first=False)
            self.model = model
            step["model"] = model
        elif op == "call":
            # The last request's tools that the list as made now still holds: the reference
            # refuses a call of one a compaction or a switch has since left out.
            callable_now = [t for t in self.offered if t in self.listed]
            if not callable_now:
                return
            withdrawn = [t for t in callable_now if t in self.withdrawn]
            pool = withdrawn if withdrawn and _maybe(self.draw, 40) else callable_now
            step.update(
                tool=draw(st.sampled_from(pool)), result=draw(st.sampled_from(PREFIX_RESULTS))
            )
        elif op == "response":
            if not self.requested:
                return
            step = draw(provider_responses())
        elif op == "params":
            names = draw(st.lists(st.sampled_from(sorted(_PARAM_VALUES)), min_size=1, unique=True))
            for name in names:
                step[name] = draw(st.sampled_from(_PARAM_VALUES[name]))
        elif op == "request_body":
            if not self.requested:
                return
            step["provider"] = draw(st.sampled_from(PREFIX_BODY_PROVIDERS))
            if _maybe(draw, 40):
                step["aside"] = draw(st.sampled_from(PREFIX_ASIDES))
        self.steps.append(step)


@st.composite
def _prefix_step_then_more(draw: Draw, builder: _PrefixBuilder, max_steps: int) -> bool:
    builder.draw = draw
    builder.step()
    return len(builder.steps) < max_steps and _maybe(draw, 88)


@st.composite
def prefix_sessions(draw: Draw, max_steps: int = 16, ops: Collection[str] | None = None) -> Case:
    """A session of the prefix area, as a case without its expected texts: `{"steps": [...]}`,
    its first step `start` (whatever `ops` names); about one in twenty is larger than the
    bound."""
    chosen = only_ops(PREFIX_OPS, PREFIX_OP_WEIGHTS, ops)
    if _maybe(draw, 5):
        max_steps *= 3
    builder = _PrefixBuilder(draw, draw(prefix_starts()), ops=chosen)
    while draw(_prefix_step_then_more(builder, max_steps)):
        pass
    return {"steps": builder.steps}
