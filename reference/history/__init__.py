"""The history area: conversations as trees, written at turn boundaries, compacted by a ladder."""

from __future__ import annotations

from pathlib import Path

from ..area import Area
from .checks import step_problems
from .config import HistoryConfig, Ladder
from .entries import (
    Assistant,
    Call,
    Compaction,
    Digest,
    Entry,
    Result,
    Snapshot,
    Summary,
    Trim,
    User,
)
from .readings import READINGS
from .request import Block, RequestView
from .session import HistorySession, HistoryStepError
from .steps import HISTORY_OPS, run_history_case, run_history_steps

HERE = Path(__file__).resolve().parent

AREA = Area(
    name="history",
    anchor_prefix="hist.",
    ops=HISTORY_OPS,
    config=HistoryConfig.from_loop,
    run=run_history_steps,
    texts=(("history", "texts"),),
    step_problems=step_problems,
    case_schema=HERE / "case.schema.json",
    loop_schema=HERE / "loop.schema.json",
    fuzz_module="ctxconf.reference.history.fuzz",
    readings=READINGS,
)

__all__ = [
    "HISTORY_OPS",
    "Assistant",
    "Block",
    "Call",
    "Compaction",
    "Digest",
    "Entry",
    "HistoryConfig",
    "HistorySession",
    "HistoryStepError",
    "Ladder",
    "RequestView",
    "Result",
    "Snapshot",
    "Summary",
    "Trim",
    "User",
    "run_history_case",
]
