"""The prefix area: every request's prefix stays stable (system prompt, tools, notes, usage)."""

from __future__ import annotations

from ..area import Area
from .checks import step_problems
from .config import PrefixConfig
from .readings import READINGS
from .session import (
    PREFIX_OPS,
    McpServer,
    PrefixSession,
    Request,
    Tool,
    run_prefix_case,
    run_prefix_steps,
)
from .usage import Usage, normalise_usage

AREA = Area(
    name="prefix",
    anchor_prefix="pfx.",
    # Its requests' texts, and the notes a request carries, which the context area words.
    texts=(("prefix", "texts"), ("context", "note")),
    config=PrefixConfig.from_loop,
    ops=PREFIX_OPS,
    step_problems=step_problems,
    run=run_prefix_steps,
    fuzz_module="ctxconf.reference.prefix.fuzz",
    readings=READINGS,
)

__all__ = [
    "PREFIX_OPS",
    "McpServer",
    "PrefixConfig",
    "PrefixSession",
    "Request",
    "Tool",
    "Usage",
    "normalise_usage",
    "run_prefix_case",
]
