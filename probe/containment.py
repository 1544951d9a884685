"""Every process a harness starts, found and ended, whether or not it left the process group.

A daemon started with `setsid` (a hub, a tmux server, a self-updater) leaves the process group
the probe kills; left alone it outlives the probe, and in `crash-mid-call` it may finish the
very command the kill was meant to interrupt. So each harness process runs in a cgroup of its
own where the machine lets the probe make one (cgroup v2, found in /proc/self/mountinfo), and
always with a marker in its environment that its descendants inherit; its processes are those
of the cgroup and those whose /proc/PID/environ holds the marker. A process that clears its
environment escapes the marker, never the cgroup.
"""

from __future__ import annotations

import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

MARKER = "CTXCONF_PROBE_CONTAINER"
PRELOAD = "CTXCONF_PROBE_PRELOAD"  # LD_PRELOAD on its way past the shell that joins the cgroup
END_TRIES = 60  # rounds of SIGKILL, END_PAUSE_S apart, before a process counts as not ended
END_PAUSE_S = 0.05
NAME_CHARS = 160


@dataclass(frozen=True)
class Member:
    pid: int
    group: int  # its process group
    parent: int
    name: str  # its command name (comm)
    argv: tuple[str, ...]

    def label(self) -> str:
        shown = " ".join(self.argv)[:NAME_CHARS] or self.name
        return f"{self.name} ({shown})"


def cgroup_base() -> Path | None:
    """The cgroup v2 folder this process is in, if the machine mounts one; None if not."""
    try:
        mounts = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
        own = Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    mount = next(
        (line.split()[4] for line in mounts if " - cgroup2 " in line and len(line.split()) > 4),
        None,
    )
    path = next((line[3:] for line in own if line.startswith("0::")), None)
    if mount is None or path is None:
        return None
    return Path(mount) / path.lstrip("/")


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def _member(pid: int) -> Member | None:
    stat = _read(Path(f"/proc/{pid}/stat")).decode("utf-8", "replace")
    name_end = stat.rfind(")")
    fields = stat[name_end + 2 :].split()
    if name_end < 0 or len(fields) < 3 or fields[0] == "Z":  # gone, or a zombie: it has ended
        return None
    name = stat[stat.find("(") + 1 : name_end]
    argv = tuple(
        part.decode("utf-8", "replace")
        for part in _read(Path(f"/proc/{pid}/cmdline")).split(b"\0")
        if part
    )
    return Member(pid, int(fields[2]), int(fields[1]), name, argv)


class Container:
    """The processes of one harness process: a cgroup where one can be made, and a marker."""

    def __init__(self, use_cgroup: bool = True) -> None:
        self.token = secrets.token_hex(8)
        self.cgroup: Path | None = None
        base = cgroup_base() if use_cgroup else None
        if base is not None:
            folder = base / f"ctxconf-probe-{self.token}"
            try:
                folder.mkdir()
                self.cgroup = folder
            except OSError:
                self.cgroup = None

    def command(self, argv: list[str], env: dict[str, str]) -> tuple[list[str], dict[str, str]]:
        """`argv` and its environment, started inside the cgroup and with the marker: a shell
        joins the cgroup, then becomes the harness. A preloaded library (libfaketime) is set
        for the harness alone: loaded into the shell too, it would find the state it made for
        that process id already there after the exec, and the harness would not start."""
        env = {**env, MARKER: self.token}
        if self.cgroup is None:
            return argv, env
        join = 'echo $$ > "$0" 2>/dev/null; exec "$@"'
        if "LD_PRELOAD" in env:
            env[PRELOAD] = env.pop("LD_PRELOAD")
            join = (
                f'echo $$ > "$0" 2>/dev/null; export LD_PRELOAD="${PRELOAD}"; unset {PRELOAD};'
                ' exec "$@"'
            )
        return ["/bin/sh", "-c", join, str(self.cgroup / "cgroup.procs"), *argv], env

    def _pids(self) -> set[int]:
        pids: set[int] = set()
        if self.cgroup is not None:
            text = _read(self.cgroup / "cgroup.procs").decode()
            pids.update(int(p) for p in text.split() if p.isdigit())
        marker = f"{MARKER}={self.token}".encode()
        own = os.getpid()
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit() and int(entry.name) != own:
                if marker in _read(entry / "environ").split(b"\0"):
                    pids.add(int(entry.name))
        return pids

    def members(self) -> list[Member]:
        found = (_member(pid) for pid in sorted(self._pids()))
        return [m for m in found if m is not None]

    def end(self, group: int) -> tuple[list[Member], list[Member]]:
        """End every process: (those that had left process group `group`, those still alive
        after every try)."""
        outside = [m for m in self.members() if m.group != group]
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        alive = self.members()
        for _ in range(END_TRIES):
            if not alive:
                break
            if self.cgroup is not None:
                try:
                    (self.cgroup / "cgroup.kill").write_text("1")
                except OSError:
                    pass
            for member in alive:
                try:
                    os.kill(member.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(END_PAUSE_S)
            alive = self.members()
        return outside, alive

    def close(self) -> None:
        if self.cgroup is not None:
            try:
                self.cgroup.rmdir()
            except OSError:
                pass  # a process that could not be ended keeps it; it is reported


def _runs(member: Member, words: list[str]) -> bool:
    argv = member.argv
    return bool(argv) and Path(argv[0]).name == words[0] and list(argv[1:]) == words[1:]


def running(members: list[Member], command: str) -> bool:
    """Whether one of `members` runs `command`: a process of its first program with its words as
    arguments (a shell may run it, but the program is there while it runs). A harness whose own
    arguments quote the command is not running it."""
    words = command.split()
    return any(_runs(m, words) for m in members)


def scenario_own(members: list[Member], commands: list[str]) -> set[int]:
    """The processes that run one of the scenario's `commands` (as `running` reads one), and
    those they started: the scenario's, not the harness's, wherever their process group is
    (`timeout` makes one of its own)."""
    wanted = [command.split() for command in commands if command.split()]
    own = {m.pid for m in members if any(_runs(m, words) for words in wanted)}
    grown = True
    while grown:
        more = {m.pid for m in members if m.parent in own} - own
        own |= more
        grown = bool(more)
    return own


__all__ = ["MARKER", "Container", "Member", "cgroup_base", "running", "scenario_own"]
