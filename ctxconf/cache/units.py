"""Building the units of a request, for the cache reader of each API shape (`shapes/`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .canonical import canonical, order_free_digest, verbatim
from .request import CacheSettings, Section, ToolSpec, Unit
from .tokens import unit_tokens


def dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def ttl_of(value: Any) -> str | None:
    """The lifetime of an Anthropic `cache_control` on `value` ("5m" when it names none)."""
    mark = value.get("cache_control") if isinstance(value, Mapping) else None
    if not isinstance(mark, Mapping):
        return None
    ttl = mark.get("ttl")
    return ttl if isinstance(ttl, str) else "5m"


def has_breakpoint(value: Any) -> bool:
    return isinstance(value, Mapping) and isinstance(value.get("prompt_cache_breakpoint"), Mapping)


def blocks_of(content: Any) -> list[Any]:
    """A message's content as blocks: a string is one text block, as a provider reads it."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return list(content)
    return [] if content is None else [content]


def content_blocks(
    content: Any, path: str, convert: Callable[[Any], Any] = lambda block: block
) -> list[tuple[str, Any]]:
    """A message's content as (path, block) pairs: a string is the one block at `path`, a list's
    blocks are at `path.N`; `convert` reads each block as the provider does."""
    if isinstance(content, str):
        return [(path, convert(block)) for block in blocks_of(content)]
    return [(f"{path}.{n}", convert(block)) for n, block in enumerate(blocks_of(content))]


def kind_of(block: Any) -> str:
    if isinstance(block, Mapping):
        if isinstance(block.get("function"), Mapping):  # a Chat Completions tool call
            return "tool_call"
        kind = block.get("type")
        if isinstance(kind, str):
            return kind
        for key in ("text", "functionCall", "functionResponse", "inlineData", "fileData"):
            if key in block:
                return key
    return "block"


# Units already made, by the block object they were made of and where it stood, each beside the
# block it keeps alive (so its id is not taken by another object); None outside `units_reused`.
_Made = dict[tuple[int, bytes, str, str, str, int, str], tuple[Any, "Unit"]]
_MADE: ContextVar[_Made | None] = ContextVar("ctxconf_units_made", default=None)


@contextmanager
def units_reused() -> Iterator[None]:
    """Within it, a unit made again of the same block object, with the same message header, at
    the same place, is the unit made the first time rather than the block encoded and hashed
    again. A session's bodies share their history's blocks (a rebuilt history is the same
    objects request after request), so reading N bodies costs the new blocks of each instead of
    all of them: N times less. The blocks must not be changed in place while it lasts."""
    token = _MADE.set({})
    try:
        yield
    finally:
        _MADE.reset(token)


@dataclass
class Parts:
    """What a shape's reader found: the units in order, the tools, the parameters, settings."""

    units: list[Unit] = field(default_factory=list)
    tools: list[ToolSpec] = field(default_factory=list)
    params: dict[str, str | None] = field(default_factory=dict)
    settings: CacheSettings = field(default_factory=CacheSettings)

    def add(
        self,
        section: Section,
        path: str,
        block: Any,
        *,
        role: str = "",
        message: int = -1,
        header: Mapping[str, Any] | None = None,
        kind: str | None = None,
    ) -> None:
        """One unit; `header` (a message's role and fields) goes before the first block."""
        head = b"" if header is None else canonical(header)
        made = _MADE.get() if block is not None else None
        key = (id(block), head, section, path, role, message, kind or "")
        if made is not None:
            found = made.get(key)
            if found is not None and found[0] is block:
                self.units.append(found[1])
                return
        data = head + (b"" if block is None else canonical(block))
        unit = Unit(
            section=section,
            path=path,
            kind=kind or kind_of(block),
            role=role,
            message=message,
            data=data,
            tokens=unit_tokens(data),
            order_free=order_free_digest([header, block]),
            ttl=ttl_of(block),
            breakpoint=has_breakpoint(block),
        )
        self.units.append(unit)
        if made is not None:
            made[key] = (block, unit)

    def add_tool(self, path: str, tool: Any, name: Any, description: Any, schema: Any) -> None:
        """One tool: its definition as a unit, and its name, description and schema."""
        self.tools.append(tool_spec(name, description, schema))
        self.add("tools", path, tool, kind="tool")

    def add_message(
        self,
        section: Section,
        path: str,
        index: int,
        role: str,
        header: Mapping[str, Any],
        blocks: list[tuple[str, Any]],
    ) -> None:
        """A message's blocks (each with its path); one unit of its header alone when it has
        none, so that an empty message still counts."""
        if not blocks:
            self.add(section, path, None, role=role, message=index, header=header, kind="message")
        for number, (block_path, block) in enumerate(blocks):
            first = header if number == 0 else None
            self.add(section, block_path, block, role=role, message=index, header=first)


def tool_spec(name: Any, description: Any, schema: Any) -> ToolSpec:
    return ToolSpec(
        name=str(name or ""),
        description=str(description or ""),
        schema=verbatim(schema if schema is not None else {}),
    )


__all__ = [
    "Parts",
    "blocks_of",
    "content_blocks",
    "dicts",
    "has_breakpoint",
    "kind_of",
    "mapping",
    "tool_spec",
    "ttl_of",
    "units_reused",
]
