"""`ctxconf ARGS` run inside the test's own process, as `python -m ctxconf ARGS` would run it.

A new interpreter costs the suite half a second of CPU per command, most of it imports; a test
of what a command prints and what it exits with learns the same from `main(argv)` called here,
provided the call sees what a fresh process sees and leaves nothing behind. So each run gets:
the folder it names as its current folder; an empty standard input; standard output and error
written through streams with a child's encoding and error handlers, read back as
`subprocess.run(text=True)` reads a pipe; Python's default warning filters (the suite turns
warnings into errors, a child does not); and afterwards the current folder, `os.environ`,
`sys.argv`, `sys.path`, the umask, the signal handlers and the recursion limit are put back, and
every module the run imported from outside the package and the installed libraries (a
`--impl python:` module, a fake beside the test) is forgotten, so the next run imports its own.

What a process alone shows stays with `tests.cli.ctxconf_process`: signals, a crash, an exit
status set by the interpreter, dropped privileges, a timeout, the package a folder holds.
"""

from __future__ import annotations

import contextlib
import gc
import io
import locale
import os
import signal
import subprocess
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

# A fresh interpreter's warning filters (Python's documented defaults, -W and PYTHONWARNINGS
# unset): deprecations shown only in __main__, resource warnings never.
_DEFAULT_FILTERS: tuple[tuple[str, type[Warning], str], ...] = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)
_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGPIPE", "SIGCHLD", "SIGALRM", "SIGUSR1")
    if hasattr(signal, name)
)
# Modules a run may leave imported: the package's own (and the copies of the reference it
# makes under names of its own), and whatever is installed with Python or in the environment.
_OWN_PREFIXES = ("ctxconf", "_ctxconf_")
_INSTALLED = tuple({str(Path(p).resolve()) for p in (sys.prefix, sys.base_prefix)})


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class _Stream:
    encoding: str
    errors: str


@cache
def _child_streams() -> tuple[_Stream, _Stream]:
    """The encoding and error handlers of a child's stdout and stderr, asked of one child (they
    follow the locale and PYTHONIOENCODING by rules the interpreter keeps to itself)."""
    asked = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; print(sys.stdout.encoding, sys.stdout.errors, "
            "sys.stderr.encoding, sys.stderr.errors)",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return _Stream(asked[0], asked[1]), _Stream(asked[2], asked[3])


def _as_a_pipe_reads(data: bytes) -> str:
    # What subprocess.run(text=True) does with a child's bytes: the locale's encoding, strict,
    # and universal newlines.
    text = data.decode(locale.getpreferredencoding(False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _writer(stream: _Stream) -> io.TextIOWrapper:
    return io.TextIOWrapper(
        io.BytesIO(), encoding=stream.encoding, errors=stream.errors, write_through=True
    )


def _is_left_behind(name: str, module: object) -> bool:
    if name.startswith(_OWN_PREFIXES):
        return False
    file = getattr(module, "__file__", None)
    if not isinstance(file, str):
        return False  # built in, or a namespace package
    return not str(Path(file).resolve()).startswith(_INSTALLED)


@contextlib.contextmanager
def _process_state(cwd: Path | None, pythonpath: Sequence[Path]) -> Iterator[None]:
    """The state a process would start with and end with, set for one run and put back."""
    folder = os.getcwd()
    environ = dict(os.environ)
    argv, path, modules = list(sys.argv), list(sys.path), set(sys.modules)
    handlers = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    limit = sys.getrecursionlimit()
    mask = os.umask(0o022)
    os.umask(mask)
    streams = sys.stdin, sys.stdout, sys.stderr
    try:
        if cwd is not None:
            os.chdir(cwd)
        if pythonpath:
            # `python -m` puts the current folder first, then PYTHONPATH; a child the command
            # starts (pyproc:, a batch) inherits the variable.
            folders = [str(p) for p in pythonpath]
            os.environ["PYTHONPATH"] = os.pathsep.join([*folders, environ.get("PYTHONPATH", "")])
            sys.path[:0] = folders
        yield
    finally:
        sys.stdin, sys.stdout, sys.stderr = streams
        os.chdir(folder)
        os.environ.clear()
        os.environ.update(environ)
        sys.argv[:], sys.path[:] = argv, path
        for name in set(sys.modules) - modules:
            if _is_left_behind(name, sys.modules[name]):
                del sys.modules[name]
        moved = [sig for sig, handler in handlers.items() if signal.getsignal(sig) != handler]
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
        sys.setrecursionlimit(limit)
        os.umask(mask)
        assert not moved, f"the run left its own handler for {moved}"


def run_main(
    args: Sequence[str],
    *,
    cwd: Path | None = None,
    pythonpath: Sequence[Path] = (),
) -> Ran:
    """`ctxconf ARGS` through `ctxconf.cli.main`, in `cwd`, as a fresh process would run it."""
    import ctxconf
    from ctxconf.cli import main

    held = Path(cwd or ".").resolve() / "ctxconf"
    if held.is_dir() and held != Path(ctxconf.__file__).resolve().parent:
        raise AssertionError(
            f"{cwd} holds a ctxconf package of its own, which `python -m ctxconf` there would "
            "import: run it with ctxconf_process"
        )

    out_kind, err_kind = _child_streams()
    out, err = _writer(out_kind), _writer(err_kind)
    threads = set(threading.enumerate())
    with _process_state(cwd, pythonpath), warnings.catch_warnings():
        warnings.resetwarnings()
        for action, category, module in reversed(_DEFAULT_FILTERS):
            warnings.filterwarnings(action, category=category, module=module)  # type: ignore[arg-type]
        sys.argv = [str(Path(sys.executable).parent / "ctxconf"), *args]
        sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")
        sys.stdout, sys.stderr = out, err
        try:
            code = _exit_status(main(list(args)), err)
        except SystemExit as stop:
            code = _exit_status(stop.code, err)
        except BaseException:  # as the interpreter does with what reaches the top of a process
            traceback.print_exc(file=err)
            code = 1
        # An object the run dropped in a cycle (a file, a socket) is collected now, under the
        # run's own filters, not in a later test under the suite's.
        gc.collect()
    left = [t for t in threading.enumerate() if t not in threads and not t.daemon]
    assert not left, f"the run left threads running: {left}"
    return Ran(code, _as_a_pipe_reads(_bytes(out)), _as_a_pipe_reads(_bytes(err)))


def _exit_status(code: object, err: io.TextIOWrapper) -> int:
    """The status a process ends with for `raise SystemExit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=err)
    return 1


def _bytes(stream: io.TextIOWrapper) -> bytes:
    stream.flush()
    raw = stream.buffer
    assert isinstance(raw, io.BytesIO)
    return raw.getvalue()
