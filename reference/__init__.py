"""The reference implementation of the spec, as a library a Python harness can embed.

    from ctxconf.reference import Session

    session = Session()
    text = session.read("src/app.py", content)      # insert `text` as the tool result
    text = session.read("src/app.py", content)      # "[#0002 …] Unchanged since #0001, …"

`PrefixSession` keeps the prefix of every request stable (area `prefix`); `normalise_usage`
reads the cached-token numbers of any provider's response; `run_area_case` runs a case of
either area.
"""

from .adapter import run_case
from .areas import AREAS, OPS_BY_AREA, UnknownArea, run_area_case
from .config import ContextConfig, Limits, Texts
from .prefix import McpServer, PrefixSession, Request, Tool, run_prefix_case
from .prefix_config import PrefixConfig
from .session import PatchFile, Session
from .usage import Usage, normalise_usage

__all__ = [
    "AREAS",
    "OPS_BY_AREA",
    "ContextConfig",
    "Limits",
    "McpServer",
    "PatchFile",
    "PrefixConfig",
    "PrefixSession",
    "Request",
    "Session",
    "Texts",
    "Tool",
    "UnknownArea",
    "Usage",
    "normalise_usage",
    "run_area_case",
    "run_case",
    "run_prefix_case",
]
