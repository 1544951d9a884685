"""The reference implementation of the spec, as a library a Python harness can embed.

    from ctxconf.reference import Session

    session = Session()
    text = session.read("src/app.py", content)      # insert `text` as the tool result
    text = session.read("src/app.py", content)      # "[#0002 …] Unchanged since #0001, …"

Each area is a folder (`context/`, `prefix/`, `history/`) registered in `areas.REGISTRY`.
`PrefixSession` keeps the prefix of every request stable (area `prefix`); `normalise_usage` reads
the cached-token numbers of any provider's response; `HistorySession` keeps the conversation as a
tree written at turn boundaries and compacts it by a ladder (area `history`); `run_area_case`
runs a case of any area; `answers_read_otherwise` runs one with a decision read the other way
(`READINGS`, one per decision of the spec).
This package imports nothing of ctxconf's tools and no test or fuzz dependency.
"""

from .area import Area
from .areas import (
    AREAS,
    OPS_BY_AREA,
    READINGS,
    REGISTRY,
    UnknownArea,
    answers_read_otherwise,
    area_of,
    run_area_case,
)
from .context import ContextConfig, Limits, PatchFile, Session, run_case
from .history import HistoryConfig, HistorySession, HistoryStepError
from .prefix import (
    McpServer,
    PrefixConfig,
    PrefixSession,
    Request,
    Tool,
    Usage,
    normalise_usage,
    run_prefix_case,
)
from .readings import Reading
from .texts import Texts, read_loop

__all__ = [
    "AREAS",
    "OPS_BY_AREA",
    "READINGS",
    "REGISTRY",
    "Area",
    "ContextConfig",
    "HistoryConfig",
    "HistorySession",
    "HistoryStepError",
    "Limits",
    "McpServer",
    "PatchFile",
    "PrefixConfig",
    "PrefixSession",
    "Reading",
    "Request",
    "Session",
    "Texts",
    "Tool",
    "UnknownArea",
    "Usage",
    "answers_read_otherwise",
    "area_of",
    "normalise_usage",
    "read_loop",
    "run_area_case",
    "run_case",
    "run_prefix_case",
]
