"""What every reader makes of a source: one `AuditRequest` per request the harness sent, with its
tokens in four classes, and the problems met on the way (each naming its file and place)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

# The lifetime a write asked for, where the source says.
Lifetime = Literal["5m", "1h"]


@dataclass(frozen=True)
class TokenClasses:
    """A request's input tokens in four classes that add up to what it sent, whatever the
    source's own meaning of "input" (each reader converts; its docstring says how).

    `None` is N/A: the source has no such field. It is never read as 0: a source that keeps no
    cache figure has no hit rate, not a hit rate of 0 %."""

    uncached: int | None  # billed at the input price
    read: int | None  # read from the cache
    written_5m: int | None  # written for five minutes (or the provider's only lifetime)
    written_1h: int | None  # written for an hour
    output: int | None = None

    @property
    def written(self) -> int | None:
        if self.written_5m is None and self.written_1h is None:
            return None
        return (self.written_5m or 0) + (self.written_1h or 0)

    @property
    def total_input(self) -> int | None:
        """Everything the request sent, in every class; N/A where the uncached count is."""
        if self.uncached is None:
            return None
        return self.uncached + (self.read or 0) + (self.written or 0)

    @property
    def has_cache_figures(self) -> bool:
        return self.read is not None


@dataclass(frozen=True)
class Place:
    """Where a request was read: a file and a line (1-based) or, for a file that is not lines
    (a SQLite store, a HAR document), a pointer inside it."""

    file: Path
    line: int | None = None
    pointer: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.file}:{self.line}"
        if self.pointer is not None:
            return f"{self.file} at {self.pointer}"
        return str(self.file)


@dataclass(frozen=True)
class AuditRequest:
    """One request as a source recorded it.

    `session` groups requests into one conversation of one harness; `source` is the reader's
    name. `body` is the request as sent, where the source keeps it (HAR, flows, gateway exports,
    Codex rollouts rebuilt, Claude Code transcripts rebuilt), with `shape` its API shape's name
    as the shapes' registry spells it (`anthropic`, `openai-chat`, `openai-responses`,
    `gemini`); None where it does not.
    """

    source: str
    session: str
    place: Place
    tokens: TokenClasses
    time: datetime | None = None  # when it was sent (or answered, where that is all there is)
    request_id: str | None = None
    model: str | None = None
    provider: str | None = None  # anthropic, openai, gemini, … where the source says or implies
    harness: str | None = None  # the harness that wrote the record (claude-code, codex, …)
    harness_version: str | None = None
    project: str | None = None  # the working folder or project the session ran in
    lifetime: Lifetime | None = None  # the lifetime the request's marks asked for
    cost_usd: float | None = None  # the source's own figure for this request
    boundary: str | None = None  # what the record says happened before it: compaction, resume…
    sidechain: bool = False  # a subagent's or side request, not the main loop
    body: dict[str, Any] | None = None
    shape: str | None = None
    # Whether `body` is every byte that was sent. A body rebuilt from a harness's own record
    # lacks what it does not keep (Claude Code's billing line, Codex's built-in tools): its
    # changes can be named, but not what the provider's rules would have read of it.
    body_complete: bool = True
    headers: tuple[tuple[str, str], ...] = ()  # credentials already removed
    diagnostics: dict[str, Any] | None = None  # the provider's own cache diagnostics, as given
    status: int | None = None  # the HTTP status, where the source keeps it
    extra: dict[str, Any] = field(default_factory=dict)  # source-specific detail worth showing


@dataclass(frozen=True)
class Problem:
    """Something in a file that could not be read; the scan goes on past it."""

    place: Place
    message: str

    def __str__(self) -> str:
        return f"{self.place}: {self.message}"


# Readers report a problem by calling this; the scan collects and prints them.
Problems = Callable[[Problem], None]
