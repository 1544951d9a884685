"""A subprocess speaking protocol messages as JSON lines on its stdin and stdout.

One process serves many cases. It starts in a session of its own, so a hang is ended by killing
its whole process group, children included. Its stderr is read all along; the last 64 KiB of
what it wrote are handed over with each case. After a case it failed in a way that may leave the
stream out of step (a crash, a hang, a line that is not a message, a wrong seq) the process is
stopped, and the next case starts a fresh one.

A crash is charged to the case that was running. A process that exits after answering a case
(found gone before the next is sent, or gone with the next request unread in its pipe) is
restarted for the next case at no cost to it, and that case's stderr says so. A case that times
out after the process itself exited (a child it started holds stdout open) names the exit code.
"""

from __future__ import annotations

import array
import fcntl
import os
import selectors
import signal
import subprocess
import termios
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from ..protocol import hello_request, stop_request
from .base import (
    MAX_MESSAGE_BYTES,
    START_SECONDS,
    STDERR_KEPT_BYTES,
    CaseFailure,
    Message,
    clamp_timeout,
    decode_message,
    encode_message,
)

_CHUNK = 1 << 20
_GRACE = 1.0  # seconds a process gets to exit by itself before it is killed


class _LineTooLong(Exception):
    pass


class _NotReceived(Exception):
    """The process had ended before it read any of the request: the case was never sent."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what  # what became of it: "exited with code 0"


def _unread(fd: int) -> int:
    """How many bytes written to the pipe `fd` no reader has taken yet."""
    count = array.array("i", [0])
    try:
        fcntl.ioctl(fd, termios.FIONREAD, count)
    except OSError:
        return -1
    return count[0]


class _StderrTail:
    """The last `limit` bytes written to stderr since they were last taken."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._data = bytearray()
        self._lock = threading.Lock()

    def feed(self, chunk: bytes) -> None:
        with self._lock:
            self._data += chunk
            if len(self._data) > self._limit:
                del self._data[: len(self._data) - self._limit]

    def take(self) -> str:
        with self._lock:
            text = self._data.decode("utf-8", "replace")
            self._data.clear()
        return text


def _pump_stderr(fd: int, tail: _StderrTail) -> None:
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return
        if not chunk:
            return
        tail.feed(chunk)


class _LineReader:
    """Reads `\\n`-ended lines from a pipe with a deadline, refusing lines over `limit` bytes."""

    def __init__(self, fd: int, limit: int) -> None:
        self._fd = fd
        self._limit = limit
        self._buffer = bytearray()
        self._scanned = 0
        self._selector = selectors.DefaultSelector()
        self._selector.register(fd, selectors.EVENT_READ)

    def readline(self, deadline: float) -> bytes | None:
        """The next line without its `\\n`; None at end of file."""
        while True:
            end = self._buffer.find(b"\n", self._scanned)
            if end > self._limit:
                raise _LineTooLong
            if end >= 0:
                line = bytes(self._buffer[:end])
                del self._buffer[: end + 1]
                self._scanned = 0
                return line
            self._scanned = len(self._buffer)
            if len(self._buffer) > self._limit:
                raise _LineTooLong
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._selector.select(remaining):
                raise TimeoutError
            chunk = os.read(self._fd, _CHUNK)
            if not chunk:
                return None
            self._buffer += chunk

    def close(self) -> None:
        self._selector.close()


class _Sent:
    """How many bytes of a message went into the pipe, however its writing ended."""

    def __init__(self) -> None:
        self.count = 0


def _write_all(fd: int, data: bytes, deadline: float, sent: _Sent | None = None) -> None:
    """Write `data` to a non-blocking pipe, giving up at `deadline` (the reader is stuck)."""
    view = memoryview(data)
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_WRITE)
        while view:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                raise TimeoutError
            try:
                written = os.write(fd, view)
            except BlockingIOError:
                continue
            view = view[written:]
            if sent is not None:
                sent.count += written


def _ending(code: int) -> str:
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"was killed by {name}"
    return f"exited with code {code}"


class _Process:
    """One started implementation process and the pipes the transport uses."""

    def __init__(self, popen: subprocess.Popen[bytes], tail: _StderrTail, limit: int) -> None:
        assert popen.stdin and popen.stdout and popen.stderr
        self.popen = popen
        self.stdin_fd = popen.stdin.fileno()
        os.set_blocking(self.stdin_fd, False)
        self.reader = _LineReader(popen.stdout.fileno(), limit)
        self.stderr_thread = threading.Thread(
            target=_pump_stderr, args=(popen.stderr.fileno(), tail), daemon=True
        )
        self.stderr_thread.start()

    def alive(self) -> bool:
        return self.popen.poll() is None

    def kill_group(self) -> None:
        """SIGKILL to the whole process group: children too, whatever signals they ignore."""
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def kill(self) -> None:
        """Kill the whole process group and release every pipe."""
        self.kill_group()
        self.popen.wait()
        self._release()

    def stop(self, deadline: float) -> None:
        """Ask the process to stop, give it a moment, then kill what is left of its group."""
        if self.alive():
            try:
                _write_all(self.stdin_fd, encode_message(stop_request()) + b"\n", deadline)
            except (OSError, TimeoutError):
                pass
            self._close_stdin()
            try:
                self.popen.wait(max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        self.kill()

    def exit_description(self) -> str:
        """What became of a process whose stdout ended: its exit code or signal."""
        try:
            code = self.popen.wait(_GRACE)
        except subprocess.TimeoutExpired:
            return "closed its stdout without answering"
        return _ending(code)

    def ended(self) -> str | None:
        """How the process ended, if it has, without waiting: "exited with code 5"."""
        code = self.popen.poll()
        return None if code is None else _ending(code)

    def _close_stdin(self) -> None:
        assert self.popen.stdin
        try:
            self.popen.stdin.close()
        except OSError:
            pass

    def _release(self) -> None:
        self._close_stdin()
        self.stderr_thread.join(_GRACE)
        self.reader.close()
        for stream in (self.popen.stdout, self.popen.stderr):
            if stream is not None:
                stream.close()


class JsonLinesTransport:
    """`cmd:COMMAND`: the implementation as a long-lived subprocess."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        start_timeout: float = START_SECONDS,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        max_line_bytes: int = MAX_MESSAGE_BYTES,
        stderr_kept_bytes: int = STDERR_KEPT_BYTES,
    ) -> None:
        self._argv = list(argv)
        self._start_timeout = start_timeout
        self._cwd = cwd
        self._env = dict(env) if env is not None else None
        self._max_line = max_line_bytes
        self._stderr = _StderrTail(stderr_kept_bytes)
        self._process: _Process | None = None
        self._exchanging = threading.Lock()  # held while a message is out

    # -- the Transport interface -----------------------------------------------------------

    def hello(self) -> Message:
        self._start()
        return self._greet()

    def _greet(self) -> Message:
        try:
            return self._exchange(hello_request(), self._start_timeout)
        except _NotReceived as never:  # it ended as it started: a crash all the same
            raise CaseFailure(
                "crash", f"the implementation {never.what} before answering"
            ) from None

    def run(self, request: Message, timeout: float) -> Message:
        gone = self._process.ended() if self._process is not None else None
        if gone is not None:  # it ended by itself after the last case it answered
            self._restarted_for_free(gone)
        elif self._process is None:
            self._restart()
        try:
            response = self._exchange(request, timeout)
        except _NotReceived as never:  # it ended after answering, just before this case
            self._restarted_for_free(never.what)
            try:
                response = self._exchange(request, timeout)
            except _NotReceived as again:  # it ends before reading whatever it is sent
                message = f"the implementation {again.what} before answering"
                raise CaseFailure("crash", message) from None
        if response.get("seq") != request.get("seq"):
            self._discard()  # out of step with the requests: the next case starts afresh
        return response

    def _restarted_for_free(self, what: str) -> None:
        """Start a new process for a case the last one ended before, and say so in the case's
        stderr: the crash, if it was one, belongs to no case the runner sent."""
        self._discard()
        self._stderr.feed(
            f"[ctxconf] the implementation {what} after answering the previous case, before "
            "this one was sent: it was restarted for this case, at no cost to it\n".encode()
        )
        self._restart()

    def close(self) -> None:
        process = self._process
        if process is None:
            return
        if not self._exchanging.acquire(blocking=False):
            # A case is under way on another thread (the run was interrupted): end it by
            # killing the group; that thread sees the end of stdout and releases the pipes.
            process.kill_group()
            return
        try:
            process.stop(time.monotonic() + _GRACE)
            self._process = None
        finally:
            self._exchanging.release()

    def take_stderr(self) -> str:
        return self._stderr.take()

    # -- the process -----------------------------------------------------------------------

    def _start(self) -> None:
        self._discard()
        try:
            popen = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
                cwd=self._cwd,
                env=self._env,
                start_new_session=True,  # so that killpg reaches its children too
            )
        except OSError as error:
            reason = error.strerror or str(error)
            raise CaseFailure("crash", f"cannot start {self._argv[0]!r}: {reason}") from None
        self._process = _Process(popen, self._stderr, self._max_line)

    def _restart(self) -> None:
        # The restart has the start's allowance: the case's own timeout begins after it.
        try:
            self._start()
            self._greet()
        except CaseFailure as failure:
            raise CaseFailure(
                failure.kind,
                f"the implementation was restarted and failed hello: {failure.message}",
            ) from None

    def _discard(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process = None

    def _exchange(self, message: Message, timeout: float) -> Message:
        with self._exchanging:
            return self._exchange_now(message, timeout)

    def _exchange_now(self, message: Message, timeout: float) -> Message:
        process = self._process
        assert process is not None
        deadline = time.monotonic() + clamp_timeout(timeout)
        data = encode_message(message) + b"\n"
        sent = _Sent()
        try:
            _write_all(process.stdin_fd, data, deadline, sent)
            line = process.reader.readline(deadline)
        except TimeoutError:
            ended = process.ended()
            self._discard()
            why = (
                f"the implementation had {ended.replace('was killed', 'been killed')}, but a "
                "process it started held its stdout open; the whole process group was killed"
                if ended is not None
                else "the implementation was killed (its whole process group)"
            )
            raise CaseFailure("timeout", f"no answer within {timeout:g} s: {why}") from None
        except _LineTooLong:
            self._discard()
            raise CaseFailure(
                "error",
                f"a response line longer than {self._max_line} bytes: "
                "the implementation was stopped",
            ) from None
        except (BrokenPipeError, ConnectionResetError):
            line = None
        if line is None:
            what = process.exit_description()
            # Every byte sent still in the pipe: the process was gone before the case reached it.
            never_read = _unread(process.stdin_fd) == sent.count
            self._discard()
            if never_read and process.popen.returncode is not None:
                raise _NotReceived(what)
            raise CaseFailure("crash", f"the implementation {what} before answering")
        try:
            return decode_message(line)
        except CaseFailure:
            self._discard()
            raise
