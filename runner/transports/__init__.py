"""Transports, and the one place an --impl SPEC string is turned into one.

reference        the bundled reference, in this process
python:MODULE    a module with hello() and run(request), in this process
pyproc:MODULE    the same module in a child process (`ctxconf serve --stdio --module MODULE`)
cmd:COMMAND      a subprocess speaking JSON lines (split with shlex, run without a shell)
http://HOST:PORT an HTTP server answering GET /hello and POST /run

A module is imported from the current folder first, then sys.path, as `python -m` would.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, cast

from ..errors import ImplementationStartError, UsageError
from .base import START_SECONDS, CaseFailure, KeepsStderr, Message, Transport
from .fake import FakeTransport
from .http import HttpTransport
from .jsonlines import JsonLinesTransport
from .python import Implementation, PythonTransport

__all__ = [
    "CaseFailure",
    "FakeTransport",
    "HttpTransport",
    "Implementation",
    "JsonLinesTransport",
    "KeepsStderr",
    "Message",
    "PythonTransport",
    "Transport",
    "TransportFactory",
    "import_implementation",
    "transport_factory",
]

TransportFactory = Callable[[], Transport]

SPEC_FORMS = "reference, python:MODULE, pyproc:MODULE, cmd:COMMAND or an http:// URL"


def transport_factory(
    spec: str,
    *,
    start_timeout: float = START_SECONDS,
    spec_dir: Path | None = None,
    loop: Mapping[str, Any] | None = None,
) -> TransportFactory:
    """Check `spec` now and return what makes a new, independent transport for it (`loop`:
    the spec's loop.json when the caller read it already)."""
    if spec == "reference":
        from ..reference_impl import ReferenceImplementation

        reference = ReferenceImplementation(spec_dir, loop=loop)
        return lambda: PythonTransport(reference, start_timeout=start_timeout)
    if spec.startswith("python:"):
        target = import_implementation(spec.removeprefix("python:"))
        return lambda: PythonTransport(target, start_timeout=start_timeout)
    if spec.startswith("pyproc:"):
        command = _child_command(spec.removeprefix("pyproc:"))
        return lambda: JsonLinesTransport(command, start_timeout=start_timeout)
    if spec.startswith("cmd:"):
        try:
            argv = shlex.split(spec.removeprefix("cmd:"))
        except ValueError as error:
            raise UsageError(f"--impl {spec!r}: cannot split the command: {error}") from None
        if not argv:
            raise UsageError("--impl cmd: needs a command, e.g. 'cmd:ctxconf serve --stdio'")
        return lambda: JsonLinesTransport(argv, start_timeout=start_timeout)
    if spec.startswith(("http://", "https://")):
        try:
            HttpTransport(spec, start_timeout=start_timeout)
        except ValueError as error:
            raise UsageError(f"--impl: {error}") from None
        return lambda: HttpTransport(spec, start_timeout=start_timeout)
    raise UsageError(f"--impl {spec!r}: expected {SPEC_FORMS}{_near_form(spec)}")


def _near_form(spec: str) -> str:
    """ "; did you mean …?" for a mistyped form (`refrence`, `pyton:x`, `http:/x`)."""
    word, colon, rest = spec.partition(":")
    forms = {"reference": "reference", "python": "python:", "pyproc": "pyproc:", "cmd": "cmd:"}
    forms |= {"http": "http://", "https": "https://"}
    close = difflib.get_close_matches(word.lower(), list(forms), n=1, cutoff=0.6)
    if not close:
        return ""
    form = forms[close[0]]
    if form != "reference":
        form += rest.lstrip("/") if colon else "…"
    return f"; did you mean {form}?"


def _current_folder_first() -> None:
    """Put the current folder first on sys.path, where `python -m` puts it, so that a module
    beside the user is found without PYTHONPATH (and stays found for its own later imports)."""
    here = os.getcwd()
    if not sys.path or sys.path[0] not in (here, ""):
        sys.path.insert(0, here)


def import_implementation(name: str, option: str = "--impl python:") -> Implementation:
    """The module `name`, checked to have hello() and run(); errors begin with `option`."""
    if not name:
        raise UsageError(f"{option} needs a module name, e.g. {option}mypackage.conformance")
    _current_folder_first()
    try:
        module = importlib.import_module(name)
    except Exception as error:  # any failure to import is the implementation's, reported whole
        raise ImplementationStartError(
            f"{option}{name}: cannot import the module: {type(error).__name__}: {error}",
            hint="the module must be importable from the current folder or PYTHONPATH",
        ) from None
    missing = [f for f in ("hello", "run") if not callable(getattr(module, f, None))]
    if missing:
        raise ImplementationStartError(
            f"{option}{name}: the module has no {' or '.join(f + '()' for f in missing)}"
        )
    return cast(Implementation, module)


def _child_command(name: str) -> list[str]:
    """`ctxconf serve --stdio --module NAME` run by this Python, after checking that the module
    can be found from here (without importing it: that is the child's job)."""
    if not name:
        raise UsageError("--impl pyproc: needs a module name, e.g. pyproc:mypackage.conformance")
    _current_folder_first()
    try:
        found = importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        found = False
    if not found:
        raise ImplementationStartError(
            f"--impl pyproc:{name}: no such module",
            hint="the module must be importable from the current folder or PYTHONPATH",
        )
    # The child starts in the runner's folder, so it imports the same module python: would.
    return [sys.executable, "-m", "ctxconf", "serve", "--stdio", "--module", name]
