"""Running one harness through a scenario, as its profile says, against a fresh mock per session.

A harness that crashes, hangs or never calls the mock is not an error here: its processes'
exit codes, timeouts and output tails are kept, and the checks judge what was recorded.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, ExitStack, nullcontext
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit

from .clock import margin_before_midnight, next_midnight, widened_margin
from .containment import Container, Member, running, scenario_own
from .events import (
    command_argv,
    command_env,
    command_line,
    command_message,
    mcp_values,
    script_edits,
    substitute,
    unplayable,
    write_instructions,
    write_mcp_config,
)
from .interrupt import signal_name
from .isolation import (
    Room,
    environment,
    faketime_library,
    faketime_value,
    init_git,
    kill_group,
    remove_faketime_leftovers,
)
from .profile import Profile
from .profile_rules import LAST_SESSION_ID
from .records import KillRecord, ProbeRun, ProcessRun, SessionRun
from .scenario import Scenario
from .server import MockServer, Script, read_log
from .session_ids import last_session_id
from .usage_file import usage_file

# What may stand between the harness and each session's mock (a recording proxy): given the
# mock's base URL, a context that gives the URL the harness is pointed at instead.
Front = Callable[[str], AbstractContextManager[str]]

VERSION_NUMBER = re.compile(r"\d+\.\d+(\.\d+)?([-+.][0-9A-Za-z.]+)?")
VERSION_TIMEOUT_S = 60
MAX_OUTPUT_BYTES = 16 * 1024 * 1024
TAIL_CHARS = 2000


def _bounded(path: Path) -> str:
    with path.open("rb") as f:
        return f.read(MAX_OUTPUT_BYTES).decode("utf-8", "replace")


def _clock_problem(profile: Profile, scenario: Scenario) -> str | None:
    moves = any(scenario.sessions) or any(t.clock for t in scenario.turns)
    if not moves or profile.clock == "self":
        return None
    if profile.clock == "static":
        return profile.clock_note or "a static binary: libfaketime cannot move its clock"
    if faketime_library() is None:
        return "libfaketime is not installed (Debian: apt-get install faketime)"
    return None


@dataclass(frozen=True)
class Started:
    """A harness process as started: its container, its output files, when and at what clock."""

    process: subprocess.Popen[bytes]
    container: Container
    out: Path
    err: Path
    first: int  # the mock's request count when it started
    wall: float
    monotonic: float
    clock: datetime | None


class _Session:
    """One session: its room, its mock, and the processes that play its turns."""

    def __init__(
        self,
        run: ProbeRun,
        index: int,
        root: Path,
        out: Path,
        path_prefix: list[str],
        clock: datetime | None,
        front: Front | None = None,
    ):
        self.run, self.index = run, index
        self.front = front
        self.profile, self.scenario = run.profile, run.scenario
        self.clock = clock  # the scenario's, or earlier after a slow start
        # Every session of a run sits at the same path, so that two sessions' prompts differ
        # only by what the harness makes differ, not by where its home is.
        shutil.rmtree(root / "session", ignore_errors=True)
        self.room = Room.make(root / "session")
        self.log = out / f"requests-{index + 1}.jsonl"
        self.log.unlink(missing_ok=True)
        self.path_prefix = path_prefix
        self.processes: list[ProcessRun] = []
        self.spawned: list[tuple[subprocess.Popen[bytes], Container]] = []
        self.began = time.monotonic()
        self.base_url = ""  # the mock's (or its front's), once it has started
        # The process under way, so that an interruption can end it and keep its record.
        self.current: tuple[Started, list[str], list[int], MockServer] | None = None

    def values(self, base_url: str) -> dict[str, str]:
        source = self.profile.source
        return {
            "base_url": base_url,
            "port": str(urlsplit(base_url).port),
            "home": str(self.room.home),
            "work": str(self.room.work),
            "python": sys.executable,
            "profile_dir": str(source.parent) if source else "",
            **mcp_values(self.scenario, self.room.root),
        }

    def prepare(self, values: dict[str, str]) -> None:
        for name, text in self.scenario.files.items():
            (self.room.work / name).write_text(text, encoding="utf-8")
        write_instructions(self.profile, self.scenario, self.room.work)
        for name, text in self.profile.files.items():
            target = self.room.place_of(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(substitute(text, values), encoding="utf-8")
        write_mcp_config(self.profile, self.scenario, self.room, values)
        init_git(self.room.work)

    def moved(self, clock: datetime | None) -> datetime | None:
        """The clock a process gets, if the probe can move it."""
        return clock if self.run.clock_problem is None else None

    def env(self, values: dict[str, str], clock: datetime | None) -> dict[str, str]:
        extra = {k: substitute(v, values) for k, v in self.profile.env.items()}
        env = environment(self.room, extra, self.path_prefix)
        if clock is not None and self.run.clock_problem is None:
            env["FAKETIME"] = faketime_value(clock)
            library = faketime_library()
            if self.profile.clock == "faketime" and library:
                env["LD_PRELOAD"] = library
                remove_faketime_leftovers()
        return env

    def clock_for_turn(self, turn: int) -> datetime | None:
        moved = self.scenario.turns[turn].clock
        if moved is not None:
            return moved
        if self.clock is None:
            return None
        return self.clock + timedelta(seconds=time.monotonic() - self.began)

    def holds(self) -> dict[int, float]:
        """In one process the clock must pass on its own: hold the answer before a turn whose
        clock moved until the harness's clock has reached it."""
        if self.profile.drive.mode == "per-turn" or self.profile.plays_one_turn:
            return {}
        if self.clock is None:
            return {}
        holds = {}
        for number, turn in enumerate(self.scenario.turns):
            if number and turn.clock is not None:
                wait = (turn.clock - self.clock).total_seconds()
                holds[self.scenario.first_step_of_turn(number) - 1] = max(0.0, wait)
        return holds

    def spawn(
        self, argv: list[str], env: dict[str, str], stdin: Path | None, tag: str
    ) -> tuple[subprocess.Popen[bytes], Container, Path, Path]:
        out, err = self.room.root / f"{tag}.stdout", self.room.root / f"{tag}.stderr"
        executable = shutil.which(argv[0], path=env["PATH"])
        if executable is None:
            raise FileNotFoundError(2, "not found on its PATH", argv[0])
        container = Container()
        with ExitStack() as files:
            o, e = files.enter_context(out.open("wb")), files.enter_context(err.open("wb"))
            source = files.enter_context(stdin.open("rb")) if stdin else subprocess.PIPE
            command, command_env = container.command([executable, *argv[1:]], env)
            try:
                process = subprocess.Popen(
                    command,
                    cwd=self.room.work,
                    env=command_env,
                    stdin=source,
                    stdout=o if stdin else subprocess.PIPE,
                    stderr=e,
                    start_new_session=True,
                )
            except OSError:
                container.close()
                raise
        self.spawned.append((process, container))
        return process, container, out, err

    def finish(
        self,
        started: Started,
        argv: list[str],
        turns: list[int],
        mock: MockServer,
        timed_out: bool,
        kill: KillRecord | None = None,
        setup: bool = False,
        interrupted: bool = False,
    ) -> None:
        process, container = started.process, started.container
        seconds = round(time.monotonic() - started.monotonic, 2)
        # What it left running goes too, inside its group or not.
        outside, alive = container.end(process.pid)
        outside = self.left_by_harness(outside, outside)
        try:
            process.wait(timeout=5)  # reaped, so its exit code is known
        except subprocess.TimeoutExpired:
            pass
        container.close()
        self.processes.append(
            ProcessRun(
                session=self.index,
                turns=turns,
                argv=argv,
                exit_code=None if timed_out or interrupted else process.returncode,
                seconds=seconds,
                timed_out=timed_out,
                stdout=_bounded(started.out),
                stderr=_bounded(started.err)[-TAIL_CHARS:],
                first_request=started.first,
                last_request=mock.model.count,
                killed=kill is not None,
                started_at=started.wall,
                clock=started.clock,
                kill=kill,
                left_running=(kill.left_group if kill else ()) + tuple(m.label() for m in outside),
                not_ended=tuple(m.label() for m in alive),
                setup=setup,
                interrupted=interrupted,
            )
        )
        self.current = None

    def not_started(
        self, argv: list[str], turns: list[int], first: int, reason: str, setup: bool = False
    ) -> None:
        self.processes.append(
            ProcessRun(
                self.index, turns, argv, None, 0.0, False, "", reason, first, first, setup=setup
            )
        )

    def start(
        self,
        argv: list[str],
        env: dict[str, str],
        stdin: Path | None,
        tag: str,
        turns: list[int],
        mock: MockServer,
        clock: datetime | None,
    ) -> Started | None:
        first, wall, monotonic = mock.model.count, time.time(), time.monotonic()
        try:
            process, container, out, err = self.spawn(argv, env, stdin, tag)
        except OSError as e:
            reason = f"cannot start {argv[0]}: {e.strerror or e}"
            self.not_started(argv, turns, first, reason, setup=tag == "setup")
            return None
        started = Started(process, container, out, err, first, wall, monotonic, self.moved(clock))
        self.current = (started, argv, turns, mock)
        return started

    def run_simple(
        self,
        argv: list[str],
        env: dict[str, str],
        turns: list[int],
        mock: MockServer,
        stdin: Path,
        clock: datetime | None,
        kill_after: float | None = None,
    ) -> None:
        started = self.start(argv, env, stdin, f"turn-{turns[0] + 1}", turns, mock, clock)
        if started is None:
            return
        process = started.process
        timed_out = False
        deadline = started.monotonic + self.profile.timeout
        kill = None
        if kill_after is not None:
            kill = self.kill_mid_call(started, mock, turns[0], kill_after, deadline)
        if kill is None:
            try:
                process.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                timed_out = True
        self.finish(started, argv, turns, mock, timed_out, kill)

    def kill_mid_call(
        self,
        started: Started,
        mock: MockServer,
        turn: int,
        seconds: float,
        deadline: float,
    ) -> KillRecord | None:
        """Kill every process of the harness `seconds` after the mock sent the turn's first
        step, a call, while the harness runs it; None if the process ended first or never got
        the call. The record says whether the call's command was still running when it came."""
        process = started.process
        step = self.scenario.first_step_of_turn(turn)
        while not mock.model.wait_answered(step, 0.2):
            if process.poll() is not None or time.monotonic() > deadline:
                return None
        try:
            process.wait(timeout=seconds)
            return None  # it finished the call and the turn before the crash came
        except subprocess.TimeoutExpired:
            pass
        command = self.scenario.steps()[step].value
        members = started.container.members()
        kill_group(process)
        outside, _ = started.container.end(process.pid)
        ended = tuple(m.label() for m in members)
        left = tuple(m.label() for m in self.left_by_harness(outside, members + outside))
        return KillRecord(command, running(members, command), ended, left)

    def left_by_harness(self, outside: list[Member], seen: list[Member]) -> list[Member]:
        """Of the processes found outside the harness's group, those it left: not the
        scenario's own commands (`seen`: every process known, so what a command started is
        traced to it), which the turn's end or its kill ends as the scenario means."""
        commands = [s.value for s in self.scenario.steps() if s.kind == "bash"]
        own = scenario_own(seen, commands)
        return [m for m in outside if m.pid not in own]

    def run_stream_json(
        self, argv: list[str], env: dict[str, str], mock: MockServer, values: dict[str, str]
    ) -> None:
        drive = self.profile.drive
        turns = list(range(len(self.scenario.turns)))
        started = self.start(argv, env, None, "session", turns, mock, self.clock)
        if started is None:
            return
        process, out = started.process, started.out
        done = threading.Semaphore(0)

        def read() -> None:
            assert process.stdout is not None
            with out.open("wb") as sink:
                for line in process.stdout:
                    sink.write(line)
                    sink.flush()
                    try:
                        event = json.loads(line)
                    except ValueError:
                        continue
                    if (
                        isinstance(event, dict)
                        and str(event.get(drive.turn_done_key)) == drive.turn_done_value
                    ):
                        done.release()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        deadline = started.monotonic + self.profile.timeout
        timed_out = False
        assert process.stdin is not None
        for turn in self.scenario.turns:
            text = command_message(self.profile, turn)
            line = substitute(drive.message_line, {**values, "message": json.dumps(text)[1:-1]})
            before = command_line(self.profile, turn)
            if before is not None:
                line = substitute(before, values) + "\n" + line
            try:
                process.stdin.write(line.encode() + b"\n")
                process.stdin.flush()
            except OSError:
                break
            if not done.acquire(timeout=max(0.0, deadline - time.monotonic())):
                timed_out = True
                break
        try:
            process.stdin.close()
        except OSError:
            pass
        if not timed_out:
            try:
                process.wait(timeout=max(1.0, min(30.0, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                pass  # it answered every turn; lingering after its input ended is no fault
        kill_group(process)
        reader.join(timeout=5)
        if process.stdout is not None:
            process.stdout.close()
        self.finish(started, argv, turns, mock, timed_out)

    def run_setup(self, values: dict[str, str], mock: MockServer) -> bool:
        """The profile's setup command, run before the first turn as a harness process is;
        whether it ran to a clean exit (else the turns are not played: the results say why)."""
        argv = [substitute(a, values) for a in self.profile.setup]
        clock = self.clock_for_turn(0)
        env = self.env(values, clock)
        started = self.start(argv, env, self.room.stdin, "setup", [], mock, clock)
        if started is None:
            return False
        timed_out = False
        try:
            started.process.wait(timeout=self.profile.timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        self.finish(started, argv, [], mock, timed_out, setup=True)
        return not timed_out and started.process.returncode == 0

    def resume_values(self, values: dict[str, str]) -> dict[str, str] | None:
        """The values of a resume command: with the id the turns before printed, when the
        command resumes by id; None when it does and no turn printed one."""
        source = self.profile.session_id
        if source is None or not any(LAST_SESSION_ID in a for a in self.profile.drive.resume):
            return values
        outputs = [(p.stdout, p.stderr) for p in self.processes if not p.setup]
        found = last_session_id(source, outputs)
        return None if found is None else {**values, "last_session_id": found}

    def play(self) -> SessionRun:
        """The session played; when a signal stops it, what was recorded until then (the run
        says which signal, the process under way is ended and marked `interrupted`)."""
        try:
            return self._play()
        except KeyboardInterrupt as stop:
            self.run.interrupted = signal_name(stop)
            under_way, self.current = self.current, None
            if under_way is not None and not any(
                p.started_at == under_way[0].wall for p in self.processes
            ):
                started, argv, turns, mock = under_way
                self.finish(started, argv, turns, mock, False, interrupted=True)
            self.end_every_process()
            return self.recorded()
        except BaseException:
            self.end_every_process()
            raise

    def end_every_process(self) -> None:
        # A harness runs in a session of its own, so no signal reached it: it is ended here.
        for process, container in self.spawned:
            container.end(process.pid)
            container.close()

    def _play(self) -> SessionRun:
        profile = self.profile
        per_turn = profile.drive.mode == "per-turn"
        compact = self.scenario.compact_turn()
        script = Script(
            self.scenario.steps(),
            str(self.room.work),
            profile.text_tool,
            profile.text_command,
            self.holds(),
            self.scenario.rebased_turns(after_kill=per_turn),
            provider=self.run.provider,
            tool_map=profile.tools,
            edits=script_edits(profile, self.scenario, self.room.work),
            ready_file=self.room.root / "mcp-ready" if self.scenario.mcp_tools else None,
            compact_steps=frozenset(
                {self.scenario.first_step_of_turn(compact)} if compact is not None else ()
            ),
            compact_marker=self.scenario.turns[0].user if compact is not None else "",
            pauses=self.scenario.pauses(),
            said=tuple(turn.user for turn in self.scenario.turns),
            served_models=profile.served_models,
            diagnostics=self.scenario.diagnostics,
            reasoning=self.scenario.reasoning,
        )
        with ExitStack() as stack:
            mock = stack.enter_context(MockServer(script, self.log))
            front = self.front or nullcontext
            self.base_url = stack.enter_context(front(mock.base_url))
            values = self.values(self.base_url)
            self.prepare(values)
            drive = self.profile.drive
            turns = self.scenario.turns
            if profile.setup and not self.run_setup(values, mock):
                pass  # its record says how it failed; no turn is played
            elif drive.mode == "per-turn":
                for number, turn in enumerate(turns):
                    command = command_argv(
                        profile, self.scenario, turn, drive.first if number == 0 else drive.resume
                    )
                    resume = self.resume_values(values) if number else values
                    if resume is None:
                        pattern = profile.session_id.pattern if profile.session_id else ""
                        why = f"no earlier turn printed a session id (pattern {pattern!r})"
                        self.not_started(list(command), [number], mock.model.count, why)
                        continue
                    message = command_message(profile, turn)
                    argv = [substitute(a, {**resume, "message": message}) for a in command]
                    clock = self.clock_for_turn(number)
                    env = self.env(values, clock)
                    for key, value in command_env(profile, turn).items():
                        env[key] = substitute(value, resume)
                    self.run_simple(
                        argv,
                        env,
                        [number],
                        mock,
                        self.room.stdin,
                        clock,
                        turn.kill_after_call_s,
                    )
            elif drive.mode == "one-process":
                argv = self.one_process_argv(
                    command_argv(profile, self.scenario, None, drive.first), values
                )
                self.run_simple(
                    argv,
                    self.env(values, self.clock),
                    list(range(len(turns))),
                    mock,
                    self.room.stdin,
                    self.clock,
                )
            elif drive.mode == "stdin-script":
                script_text = "".join(
                    substitute(
                        drive.message_line, {**values, "message": command_message(profile, t)}
                    )
                    + "\n"
                    for t in turns
                )
                if drive.script:
                    script_text = substitute(drive.script, values)
                stdin = self.room.root / "script"
                stdin.write_text(
                    script_text + substitute(drive.script_end, values), encoding="utf-8"
                )
                argv = [
                    substitute(a, values)
                    for a in command_argv(profile, self.scenario, None, drive.first)
                ]
                self.run_simple(
                    argv,
                    self.env(values, self.clock),
                    list(range(len(turns))),
                    mock,
                    stdin,
                    self.clock,
                )
            else:
                argv = [
                    substitute(a, values)
                    for a in command_argv(profile, self.scenario, None, drive.first)
                ]
                self.run_stream_json(argv, self.env(values, self.clock), mock, values)
        return self.recorded()

    def recorded(self) -> SessionRun:
        """What the session did: the requests logged, the processes run, the usage file."""
        usage = self.profile.usage_output
        path = None
        if usage is not None and usage.file:
            path = usage_file(usage.file, self.room.home, self.room.work)
        shown = _bounded(path) if path is not None else None
        mcp_log = read_log(self.room.root / "mcp-log.jsonl")
        return SessionRun(
            self.index,
            self.clock,
            read_log(self.log),
            self.processes,
            shown,
            mcp_log=mcp_log,
            base_url=self.base_url,
        )

    def one_process_argv(self, command: Sequence[str], values: dict[str, str]) -> list[str]:
        argv: list[str] = []
        messages = []
        for turn in self.scenario.turns:
            before = command_line(self.profile, turn)  # a command of its own, such as /model
            if before is not None:
                messages.append(substitute(before, values))
            messages.append(command_message(self.profile, turn))
        values = {**values, "message": messages[0]}
        for arg in command:
            if arg == "{messages}":
                argv.extend(messages)
            elif arg.startswith("{messages:") and arg.endswith("}"):
                between = arg[len("{messages:") : -1]
                for number, message in enumerate(messages):
                    argv.extend([between, message] if number else [message])
            else:
                argv.append(substitute(arg, values))
        return argv


def _version_of(done: subprocess.CompletedProcess[bytes], argv: list[str]) -> str:
    command = " ".join([Path(argv[0]).name, *argv[1:]])[:120]
    if done.returncode != 0:
        return f"unknown ({command} exited {done.returncode})"
    lines = (done.stdout or done.stderr).decode("utf-8", "replace").strip().splitlines()
    if not lines:
        return f"unknown ({command} printed nothing)"
    # "This is mini-swe-agent version 2.4.6." and "2.1.332 (Claude Code)" both mean a number.
    number = VERSION_NUMBER.search(lines[0])
    return number.group(0) if number else lines[0].strip()[:200]


def harness_version(profile: Profile, path_prefix: list[str]) -> str | None:
    """What the version command printed: its number, `unknown (… exited N)` when it failed,
    None when the profile has none or its command is not installed."""
    if not profile.version_command:
        return None
    with tempfile.TemporaryDirectory(prefix="ctxconf-probe-version-") as root:
        room = Room.make(Path(root))
        env = environment(room, {}, path_prefix)
        source = profile.source
        values = {"python": sys.executable, "profile_dir": str(source.parent) if source else ""}
        argv = [substitute(a, values) for a in profile.version_command]
        executable = shutil.which(argv[0], path=env["PATH"])
        if executable is None:
            return None
        container = Container()
        command, command_env = container.command([executable, *argv[1:]], env)
        try:
            with room.stdin.open("rb") as stdin:
                process = subprocess.Popen(
                    command,
                    env=command_env,
                    cwd=room.work,
                    stdin=stdin,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=True,
                )
                try:
                    out, err = process.communicate(timeout=VERSION_TIMEOUT_S)
                except subprocess.TimeoutExpired:
                    return f"unknown ({' '.join(argv)[:120]} timed out)"
                finally:
                    container.end(process.pid)
                    process.wait()
        except OSError as error:
            return f"unknown ({argv[0]}: {error.strerror or error})"
        finally:
            container.close()
    done = subprocess.CompletedProcess(argv, process.returncode, out[:MAX_OUTPUT_BYTES], err)
    return _version_of(done, argv)


def _not_installed(run: ProbeRun) -> str | None:
    """Why no process of the run could start, when none could: one reason for the whole run."""
    processes = [p for s in run.sessions for p in s.processes]
    if not processes or any(p.exit_code is not None or p.timed_out for p in processes):
        return None
    return processes[0].stderr if all(p.seconds == 0.0 for p in processes) else None


def _play_sessions(
    run: ProbeRun, root: Path, out: Path, prefix: list[str], front: Front | None
) -> None:
    """Each session of the run's scenario, until the last or an interruption."""
    scenario = run.scenario
    for index, start in enumerate(scenario.sessions):
        margins = [margin_before_midnight(start)] if start else []
        while True:
            clock = start and next_midnight(start) - timedelta(seconds=margins[-1])
            session = _Session(run, index, root, out, prefix, clock, front).play()
            session.margins = list(margins)
            wider = None if run.interrupted else widened_margin(scenario, session)
            if wider is None:
                break
            margins.append(wider)
        run.sessions.append(session)
        if run.interrupted:
            return


def run_probe(
    profile: Profile,
    scenario: Scenario,
    out: Path,
    path_prefix: list[str] | None = None,
    keep: bool = False,
    provider: str | None = None,
    front: Front | None = None,
) -> ProbeRun:
    """Play every session of `scenario` with the harness of `profile`; logs go under `out`. A
    session whose first turn ran past midnight in the harness's clock is played again with its
    clock started earlier (`clock.widened_margin`). A scenario the profile can cause none of
    the changes of is not played (`events.unplayable`). A signal (Ctrl-C) stops it where it is:
    the run keeps what was recorded and says which signal (`interrupted`). A `front` stands
    between the harness and each session's mock: the harness is given its URL."""
    prefix = list(path_prefix or [])
    out.mkdir(parents=True, exist_ok=True)
    now = datetime.now().astimezone()
    run = ProbeRun(
        profile, scenario, None, now, now, _clock_problem(profile, scenario), provider=provider
    )
    try:
        run.version = harness_version(profile, prefix)
        run.not_played = unplayable(profile, scenario)
        if run.not_played is None:
            root = Path(tempfile.mkdtemp(prefix=f"ctxconf-probe-{profile.name}-"))
            try:
                _play_sessions(run, root, out, prefix, front)
            finally:
                if keep:
                    run.kept = root
                else:
                    shutil.rmtree(root, ignore_errors=True)
    except KeyboardInterrupt as stop:  # outside a session: each one played is kept
        run.interrupted = run.interrupted or signal_name(stop)
    run.finished = datetime.now().astimezone()
    run.not_installed = _not_installed(run)
    return run


__all__ = [
    "Front",
    "KillRecord",
    "ProbeRun",
    "ProcessRun",
    "SessionRun",
    "harness_version",
    "run_probe",
    "substitute",
]
