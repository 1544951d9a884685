"""A python: implementation that changes the working folder while it runs a case, as careless
harness code may: the run's files must still land where the user asked."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ctxconf.runner import reference_impl

hello = reference_impl.hello


def run(request: dict[str, Any]) -> dict[str, Any]:
    os.chdir(tempfile.gettempdir())
    return reference_impl.run(request)
