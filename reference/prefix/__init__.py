"""The prefix area: every request's prefix stays stable (system prompt, tools, notes, usage)."""

from __future__ import annotations

from ..area import Area
from .checks import step_problems
from .config import PrefixConfig
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
    ops=PREFIX_OPS,
    config=PrefixConfig.from_loop,
    run=run_prefix_steps,
    texts=(("prefix", "texts"), ("context", "note")),
    step_problems=step_problems,
    fuzz_module="ctxconf.reference.prefix.fuzz",
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
