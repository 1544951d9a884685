"""A harness's run kept to itself: its own home, temp and XDG folders, an empty file as standard
input, loopback only (proxies pointed at a closed port, except for 127.0.0.1), and a timeout
that kills the whole process group."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

# libfaketime, where Debian's `faketime` package puts it.
FAKETIME_LIBS = (
    "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1",
    "/usr/lib/faketime/libfaketime.so.1",
)
CLOSED_PROXY = "http://127.0.0.1:9"
KEEP_FROM_PARENT = ("PATH", "LANG", "LC_ALL", "SYSTEMROOT")


@dataclass(frozen=True)
class Room:
    """The folders of one session's run."""

    root: Path
    home: Path
    tmp: Path
    work: Path
    stdin: Path

    @classmethod
    def make(cls, root: Path) -> Room:
        room = cls(root, root / "home", root / "tmp", root / "work", root / "stdin")
        for folder in (room.home, room.tmp, room.work):
            folder.mkdir(parents=True, exist_ok=True)
        for xdg in (".config", ".cache", ".local/share", ".local/state"):
            (room.home / xdg).mkdir(parents=True, exist_ok=True)
        room.stdin.write_bytes(b"")
        return room

    def place_of(self, name: str) -> Path:
        """Where a profile's file `name` (home/PATH or work/PATH) goes in this room."""
        top, _, rest = name.partition("/")
        return (self.home if top == "home" else self.work) / rest


def faketime_library() -> str | None:
    found = os.environ.get("CTXCONF_LIBFAKETIME")
    for candidate in ((found,) if found else ()) + FAKETIME_LIBS:
        if Path(candidate).is_file():
            return candidate
    return None


def remove_faketime_leftovers(shm: Path = Path("/dev/shm")) -> None:
    """libfaketime leaves its shared memory and semaphore behind when a process does not exit
    cleanly, and a later process given the same PID then fails to start: remove those of
    processes that are gone."""
    for leftover in (*shm.glob("faketime_shm_*"), *shm.glob("sem.faketime_sem_*")):
        pid = leftover.name.rsplit("_", 1)[-1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            leftover.unlink(missing_ok=True)


def faketime_value(clock: datetime) -> str:
    # "@" starts the clock at that moment and lets it run on.
    return "@" + clock.strftime("%Y-%m-%d %H:%M:%S")


def environment(room: Room, extra: Mapping[str, str], path_prefix: list[str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in KEEP_FROM_PARENT if k in os.environ}
    env["PATH"] = os.pathsep.join([*path_prefix, env.get("PATH", "/usr/bin:/bin")])
    env.update(
        HOME=str(room.home),
        TMPDIR=str(room.tmp),
        TMP=str(room.tmp),
        TEMP=str(room.tmp),
        XDG_CONFIG_HOME=str(room.home / ".config"),
        XDG_CACHE_HOME=str(room.home / ".cache"),
        XDG_DATA_HOME=str(room.home / ".local/share"),
        XDG_STATE_HOME=str(room.home / ".local/state"),
        LANG=env.get("LANG", "C.UTF-8"),
        TERM="dumb",
        NO_COLOR="1",
        HTTP_PROXY=CLOSED_PROXY,
        HTTPS_PROXY=CLOSED_PROXY,
        ALL_PROXY=CLOSED_PROXY,
        http_proxy=CLOSED_PROXY,
        https_proxy=CLOSED_PROXY,
        all_proxy=CLOSED_PROXY,
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
    )
    env.update(extra)
    return env


def init_git(work: Path) -> None:
    """One commit with a fixed date, so a harness that shows git state sees the same each run."""
    git = shutil.which("git")
    if git is None:
        return
    fixed = "2026-01-01T00:00:00+00:00"
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work.parent / "home"),
        "GIT_AUTHOR_NAME": "probe",
        "GIT_AUTHOR_EMAIL": "probe@127.0.0.1",
        "GIT_COMMITTER_NAME": "probe",
        "GIT_COMMITTER_EMAIL": "probe@127.0.0.1",
        "GIT_AUTHOR_DATE": fixed,
        "GIT_COMMITTER_DATE": fixed,
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "files"]):
        subprocess.run([git, *args], cwd=work, env=env, check=False, capture_output=True)


def kill_group(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


__all__ = [
    "Room",
    "environment",
    "faketime_library",
    "faketime_value",
    "init_git",
    "kill_group",
    "remove_faketime_leftovers",
]
