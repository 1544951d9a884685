"""What `ctxconf probe` does, behind its thin command module: probe one harness, list what is
bundled, or build the matrix of several results files."""

from __future__ import annotations

import dataclasses
import sys
from json import dumps
from pathlib import Path
from typing import Any, TextIO

from ctxconf.cache import load_prices
from ctxconf.exitcodes import EXIT_INTERRUPTED
from ctxconf.shapes import provider_for
from ctxconf.terminal.controls import visible_controls
from ctxconf.userfiles.atomic import write_text_atomic

from . import results
from .batch import Pair, pairs, probe_many
from .cache_view import console_lines
from .causes import cause_lines, check_summary, count_line
from .checks import judge_run
from .errors import ProbeDataError
from .harness import Front, ProbeRun, run_probe
from .interrupt import interruptible
from .matrix import change_lines, matrix_rows
from .matrix import compare as compare_rows
from .matrix import load as load_matrix
from .matrix import to_data as matrix_data
from .padding import padded
from .pages import matrix_html, matrix_markdown, run_page
from .profile import bundled_profiles, load_profile
from .scenario import bundled_scenarios, check_reasoning, load_scenario
from .tolerance import Tolerance, parse_tolerance


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, text)


def probe(
    harness: str,
    scenario_name: str,
    bins: list[Path],
    timeout: float | None,
    keep: bool,
    html: Path | None,
    json: Path | None,
    out: TextIO,
    provider: str | None = None,
    prices: Path | None = None,
    folder: Path | None = None,
    padding: int | None = None,
    front: Front | None = None,
) -> int:
    profile = load_profile(harness)
    scenario = load_scenario(scenario_name)
    if padding is not None:
        scenario, where = padded(scenario, profile, padding)
        out.write(f"padded with project notes of about {padding:,} tokens in {where}\n")
    provider_for(profile.api, provider)  # refused before the harness starts
    check_reasoning(scenario, profile.api)
    table = load_prices(prices)
    if timeout is not None:
        profile = dataclasses.replace(profile, timeout=timeout)
    if html is None and json is None:  # named as a batch names each pair's files
        stem = (folder or Path("reports")) / Pair(harness, scenario_name).stem
        html, json = Path(f"{stem}.html"), Path(f"{stem}.json")
    logs_dir = (json or html or Path("reports/probe")).with_suffix(".requests")
    with interruptible() as stop:
        run = run_probe(
            profile,
            scenario,
            logs_dir,
            [str(b.resolve()) for b in bins],
            keep,
            provider,
            front,
        )
        stop.playing = False  # a signal from here on is noted: what was found is written whole
        judged = judge_run(run)
        logs = sorted(logs_dir.glob("requests-*.jsonl"))
        data = results.to_data(run, judged, logs, table)
        if json is not None:
            results.write(json, data)
        if html is not None:
            _write(html, run_page(data))
        code = _console(run, data, out)
        if run.interrupted is not None:
            written = " and ".join(str(p) for p in (json, html) if p is not None)
            out.write(f"interrupted by {run.interrupted}: what the run found is in {written}\n")
        return EXIT_INTERRUPTED if run.interrupted or stop.signal_name else code


def _console(run: ProbeRun, data: dict[str, Any], out: TextIO) -> int:
    """What the console says of a run; its exit code."""
    profile, scenario = run.profile, run.scenario
    checks = data["checks"]
    code = 1 if any(c["verdict"] in results.FAILING for c in checks) else 0
    if run.not_installed is not None:
        reason = visible_controls(run.not_installed, also="\n")
        out.write(f"{profile.name}: not installed: {reason}\n")
        return code
    version = visible_controls(run.version or "version unknown", also="\n")
    if run.not_played is not None:
        reason = visible_controls(run.not_played, also="\n")
        out.write(f"{profile.name} ({version}), scenario {scenario.name}: not played: {reason}\n")
        return code
    out.write(
        f"{profile.name} ({version}), scenario {scenario.name}: {data['requests']} requests\n"
    )
    for line in cause_lines(data):  # each once, before the checks that refer to it
        out.write(f"  {visible_controls(line)}\n")
    for check in checks:
        summary = visible_controls(check_summary(check, data["shortfalls"]))
        out.write(f"  {check['verdict']:<12} {check['id']:<15} {summary}\n")
    for line in console_lines(data):
        out.write(visible_controls(line) + "\n")
    for line in _left_running(run):
        out.write(line + "\n")
    if run.kept:
        out.write(f"the last session's folders are kept in {run.kept}\n")
    out.write(count_line(checks) + "\n")
    return code


def _left_running(run: ProbeRun) -> list[str]:
    """A line per process a harness left running outside its process group, which the probe
    found and ended, and per process it could not end."""
    lines = []
    for session in run.sessions:
        for process in session.processes:
            turns = ", ".join(str(t + 1) for t in process.turns)
            for name in process.left_running:
                shown = visible_controls(name, also="\n")
                lines.append(f"  left running after turn {turns}, ended: {shown}")
            for name in process.not_ended:
                shown = visible_controls(name, also="\n")
                lines.append(f"  still running after turn {turns}, not ended: {shown}")
    return lines


def probe_all(
    harnesses: list[str], scenarios: list[str], jobs: int, folder: Path | None, options: list[str]
) -> int:
    """Every harness with every scenario (`all`: every bundled one), `jobs` at a time."""
    named = [n for h in harnesses for n in (bundled_profiles() if h == "all" else [h])]
    plays = [n for s in scenarios for n in (bundled_scenarios() if s == "all" else [s])]
    for name in dict.fromkeys(named):
        load_profile(name)  # a broken one is refused before any harness starts
    for name in dict.fromkeys(plays):
        load_scenario(name)
    todo = pairs(list(dict.fromkeys(named)), list(dict.fromkeys(plays)))
    return probe_many(todo, jobs, folder or Path("reports"), options, sys.stdout)


def list_bundled(out: TextIO) -> int:
    out.write("harnesses: " + ", ".join(bundled_profiles()) + "\n")
    out.write("scenarios: " + ", ".join(bundled_scenarios()) + "\n")
    return 0


def matrix(
    files: list[Path],
    html: Path | None,
    markdown: Path | None,
    out: TextIO,
    json: Path | None = None,
    compare: Path | None = None,
    tolerance: str | None = None,
) -> int:
    """The matrix of `files`; with `compare`, every cell that changed since that earlier matrix
    is marked and said (better, worse, or within `tolerance` only changed), and the exit code is
    1 when one got worse."""
    judged_by = parse_tolerance(tolerance) if tolerance is not None else Tolerance()
    runs = [results.load(path) for path in files]
    if not runs:
        raise ProbeDataError("--matrix needs at least one results file")
    rows = matrix_rows(runs)
    comparison = None
    if compare is not None:
        comparison = compare_rows(rows, load_matrix(compare), str(compare), judged_by)
    if json is not None:
        _write(json, dumps(matrix_data(rows), indent=2, ensure_ascii=False) + "\n")
    if html is not None:
        _write(html, matrix_html(rows, comparison))
    if markdown is not None:
        _write(markdown, matrix_markdown(rows, comparison))
    if html is None and markdown is None and json is None:
        out.write(matrix_markdown(rows, comparison))
    if comparison is None:
        return 0
    for line in change_lines(rows, comparison):
        out.write(visible_controls(line) + "\n")
    return 1 if comparison.worse else 0


__all__ = ["list_bundled", "matrix", "probe", "probe_all"]
