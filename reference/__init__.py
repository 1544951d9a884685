"""The reference implementation of context hygiene, as a library a Python harness can embed.

    from ctxconf.reference import Session

    session = Session()
    text = session.read("src/app.py", content)      # insert `text` as the tool result
    text = session.read("src/app.py", content)      # "[#0002 …] Unchanged since #0001, …"
"""

from .adapter import run_case
from .config import ContextConfig, Limits, Texts
from .session import PatchFile, Session

__all__ = ["ContextConfig", "Limits", "PatchFile", "Session", "Texts", "run_case"]
