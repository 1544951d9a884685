"""Transports, and the one place an --impl SPEC string is turned into one.

reference        the bundled reference, in this process
python:MODULE    a module with hello() and run(request), in this process
cmd:COMMAND      a subprocess speaking JSON lines (split with shlex, run without a shell)
http://HOST:PORT an HTTP server answering GET /hello and POST /run
"""

from __future__ import annotations

import importlib
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import cast

from ..errors import ImplementationStartError, UsageError
from .base import CaseFailure, KeepsStderr, Message, Transport
from .fake import FakeTransport
from .http import HttpTransport
from .jsonlines import JsonLinesTransport
from .python import Implementation, PythonTransport

__all__ = [
    "CaseFailure",
    "FakeTransport",
    "HttpTransport",
    "JsonLinesTransport",
    "KeepsStderr",
    "Message",
    "PythonTransport",
    "Transport",
    "TransportFactory",
    "transport_factory",
]

TransportFactory = Callable[[], Transport]

SPEC_FORMS = "reference, python:MODULE, cmd:COMMAND or an http:// URL"


def transport_factory(
    spec: str, *, timeout: float, spec_dir: Path | None = None
) -> TransportFactory:
    """Check `spec` now and return what makes a new, independent transport for it."""
    if spec == "reference":
        from ..reference_impl import ReferenceImplementation

        reference = ReferenceImplementation(spec_dir)
        return lambda: PythonTransport(reference, timeout=timeout)
    if spec.startswith("python:"):
        target = _import(spec.removeprefix("python:"))
        return lambda: PythonTransport(target, timeout=timeout)
    if spec.startswith("cmd:"):
        try:
            argv = shlex.split(spec.removeprefix("cmd:"))
        except ValueError as error:
            raise UsageError(f"--impl {spec!r}: cannot split the command: {error}") from None
        if not argv:
            raise UsageError("--impl cmd: needs a command, e.g. 'cmd:ctxconf serve --stdio'")
        return lambda: JsonLinesTransport(argv, timeout=timeout)
    if spec.startswith(("http://", "https://")):
        try:
            HttpTransport(spec, timeout=timeout)
        except ValueError as error:
            raise UsageError(f"--impl: {error}") from None
        return lambda: HttpTransport(spec, timeout=timeout)
    raise UsageError(f"--impl {spec!r}: expected {SPEC_FORMS}")


def _import(name: str) -> Implementation:
    if not name:
        raise UsageError("--impl python: needs a module name, e.g. python:mypackage.conformance")
    try:
        module = importlib.import_module(name)
    except Exception as error:  # any failure to import is the implementation's, reported whole
        raise ImplementationStartError(
            f"--impl python:{name}: cannot import the module: {type(error).__name__}: {error}",
            hint="the module must be importable from here (check PYTHONPATH)",
        ) from None
    missing = [f for f in ("hello", "run") if not callable(getattr(module, f, None))]
    if missing:
        raise ImplementationStartError(
            f"--impl python:{name}: the module has no {' or '.join(f + '()' for f in missing)}"
        )
    return cast(Implementation, module)
