"""The context area: what a harness inserts for each tool call (ids, reads, stubs, cap, diffs)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..area import Area
from . import equivalent_diff
from .adapter import OPS, run_case
from .config import ContextConfig, Limits
from .readings import READINGS
from .session import PatchFile, Session


def _equivalent(config: ContextConfig, step: Mapping[str, Any], expected: str, actual: str) -> bool:
    return equivalent_diff.check(
        step,
        expected,
        actual,
        context=config.diff_context,
        no_newline=config.texts.render("no_newline"),
    ).equivalent


AREA = Area(
    name="context",
    anchor_prefix="ctx.",
    ops=OPS,
    config=ContextConfig.from_loop,
    run=run_case,
    texts=(("context", "texts"), ("context", "note")),
    equivalent=_equivalent,
    examples="examples",
    fuzz_module="ctxconf.reference.context.fuzz",
    id_form=(r"^#[0-9a-f]{4,}$", "# and 4 or more lowercase hex digits"),
    readings=READINGS,
)

__all__ = ["AREA", "OPS", "ContextConfig", "Limits", "PatchFile", "Session", "run_case"]
