"""A probe's results file (format `ctxconf-probe-results` 1): the harness, its version, the
scenario, the date of the run, every check's verdict with its figures, and the processes run.

A probe result is not a conformance case (no steps, no expected texts), so it has a file of its
own, described by `probe/data/schemas/results.schema.json` and validated on reload.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ctxconf import __version__
from ctxconf.cache import PriceTable, bundled_prices
from ctxconf.exitcodes import EXIT_INTERRUPTED
from ctxconf.userfiles.atomic import write_text_atomic

from . import usage_figures
from .checks import CheckResult, Judgement
from .errors import ProbeDataError
from .harness import ProbeRun
from .schemas import validate_data

FORMAT = "ctxconf-probe-results"
FORMAT_VERSION = 1
FAILING = frozenset({"fail", "error"})


def exit_code(checks: list[CheckResult]) -> int:
    """0 when no exact check failed or erred, else 1."""
    return 1 if any(c.verdict in FAILING for c in checks) else 0


def to_data(
    run: ProbeRun, judged: Judgement, logs: list[Path], prices: PriceTable | None = None
) -> dict[str, Any]:
    profile, checks = run.profile, judged.checks
    table = prices if prices is not None else bundled_prices()
    cache = [f for s in run.sessions for f in usage_figures.session_figures(s, table)]
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "ctxconf_version": __version__,
        "harness": {
            "name": profile.name,
            "description": profile.description,
            "api": profile.api,
            "version": run.version,
            "version_seen": profile.version_seen,
            "profile": str(profile.source) if profile.source else f"bundled:{profile.name}",
        },
        "scenario": {"name": run.scenario.name, "description": run.scenario.description},
        "started": run.started.isoformat(timespec="seconds"),
        "finished": run.finished.isoformat(timespec="seconds"),
        "clock_problem": run.clock_problem,
        "not_installed": run.not_installed,
        "not_played": run.not_played,
        "interrupted": run.interrupted,
        "shortfalls": [
            {"need": f.need, "turn": None if f.turn is None else f.turn + 1, "reason": f.reason}
            for f in judged.shortfalls
        ],
        "clock_margins": [s.margins for s in run.sessions],
        "checks": [asdict(c) for c in checks],
        "processes": [
            {
                "session": p.session + 1,
                "turns": [t + 1 for t in p.turns],
                "argv": p.argv,
                "exit_code": p.exit_code,
                "seconds": p.seconds,
                "timed_out": p.timed_out,
                "killed": p.killed,
                "stderr_tail": p.stderr[-1000:],
                "requests": p.last_request - p.first_request,
                "clock": None if p.clock is None else p.clock.isoformat(),
                "kill": None if p.kill is None else asdict(p.kill),
                "left_running": list(p.left_running),
                "not_ended": list(p.not_ended),
                "setup": p.setup,
                "interrupted": p.interrupted,
            }
            for s in run.sessions
            for p in s.processes
        ],
        "requests": sum(len(s.entries) for s in run.sessions),
        "cache": usage_figures.to_data(cache),
        "logs": [str(p) for p in logs],
        "exit_code": EXIT_INTERRUPTED if run.interrupted else exit_code(checks),
    }


def write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def load(path: Path) -> dict[str, Any]:
    """A results file, checked against its schema; a broken one is a ProbeDataError."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ProbeDataError(f"{path}: {e.strerror}") from None
    except json.JSONDecodeError as e:
        raise ProbeDataError(f"{path}:{e.lineno}:{e.colno}: {e.msg}") from None
    validate_data(data, "results", str(path))
    return dict(data)


__all__ = ["FORMAT", "exit_code", "load", "to_data", "write"]
