"""Benchmark of the HTML report: many failing cases, and one huge output.

1. Many failing cases. The bundled `context` cases repeated to `--cases` (10,000), every one
   failing at its last step with a changed line and an implementation's `<script>`, written as a
   results file; then `ctxconf report FILE --html PAGE` as a user runs it, under `/usr/bin/time`
   (wall time, maximum resident set). With Chromium installed, the page is opened headless: the
   time to its load event, its DOM nodes and script heap, and the time to unfold the last case
   (whose details wait in a data block until then).
2. Huge outputs. One case whose output is `--output-mb` (100) MB of lines, and `--huge-cases`
   (200) cases with a 1 MB output each, each rendered in a process of its own through
   `write_html`, as `ctxconf run --html` does (a results file that large is more than
   `ctxconf report` reads): render time, and the maximum resident set before and after rendering
   (the inputs alone are in the first).

    python bench/report_bench.py                  # full sizes, prints a markdown section
    python bench/report_bench.py --quick          # 300 cases, a 5 MB output, 20 of 1 MB
    python bench/report_bench.py --write-readme   # also update the Report section of README.md

Exit codes: 0 when every measurement ran, 1 when a page could not be made or read, 2 for usage.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import readme  # sibling scripts, not a package
from runner_bench import write_section

from ctxconf import __version__
from ctxconf.reference import run_case
from ctxconf.runner.results import CASE_VERDICTS
from ctxconf.specdata.paths import bundled_spec_dir

ROOT = Path(__file__).resolve().parent.parent
README = Path(__file__).parent / "README.md"
START_MARKER = "<!-- report:start -->"
END_MARKER = "<!-- report:end -->"
TIME = Path("/usr/bin/time")
CHROMIUM = Path("/usr/bin/chromium")
SCRIPT = "<script>window.pwned = 1</script>"


def _header() -> dict[str, Any]:
    return {
        "ctxconf_version": __version__,
        "spec_version": "bench",
        "spec_dir": str(bundled_spec_dir()),
        "impl": "cmd:./bench-impl",
        "implementation": {"name": "bench", "version": "0", "language": "python"},
        "areas": ["context"],
        "started": "2026-11-30T00:00:00+00:00",
        "options": {
            "jobs": 1, "timeout": 10.0, "k": None, "accept_equivalent_diffs": False,
            "expected_failures": None,
        },
    }  # fmt: skip


def _document(cases: list[dict[str, Any]]) -> dict[str, Any]:
    totals = dict.fromkeys(CASE_VERDICTS, 0) | {"fail": len(cases)}
    return {
        "format": "ctxconf-results",
        "format_version": 1,
        "header": _header(),
        "cases": cases,
        "footer": {
            "finished": "2026-11-30T00:00:01+00:00",
            "duration": 1.0,
            "totals": totals,
            "exit_code": 1,
        },
    }


def _changed(text: str) -> str:
    lines = text.split("\n")
    lines[len(lines) // 2] += " (changed)"
    return "\n".join(lines) + f"\n{SCRIPT}"


def many_failing(count: int) -> dict[str, Any]:
    """`count` failing cases: the bundled context cases over and over, each failing at its end."""
    source = json.loads(
        (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
    )["cases"]
    templates = []
    for case in source:
        expected = run_case(case)
        steps = [
            {"index": i, "step": step, "expected": text, "actual": text, "verdict": "pass"}
            for i, (step, text) in enumerate(zip(case["steps"], expected, strict=True))
        ]
        steps[-1] = {**steps[-1], "actual": _changed(expected[-1]), "verdict": "fail"}
        templates.append((case, steps))
    cases = []
    for number in range(count):
        case, steps = templates[number % len(templates)]
        cases.append(
            {
                "area": "context", "file": "context.json", "name": f"{case['name']}-{number}",
                "description": case["description"], "rules": case["rules"], "verdict": "fail",
                "message": "", "duration": 0.001, "stderr": "", "steps": steps,
            }
        )  # fmt: skip
    return _document(cases)


def huge_output(megabytes: int, cases: int = 1) -> dict[str, Any]:
    """Failing cases whose output is `megabytes` MB of numbered lines, one of them changed (the
    same two texts in every case)."""
    line = "line {:>9} of a long command output, padded to about eighty characters....\n"
    count = megabytes * 1_000_000 // len(line.format(0))
    expected = "".join(line.format(n) for n in range(count))
    actual = expected.replace(line.format(count // 2), line.format("changed"), 1) + SCRIPT
    step = {"op": "output", "tool": "bash", "args": {"command": "make"}, "text": "(the same)"}
    return _document([
        {
            "area": "context", "file": "context.json", "name": f"huge-output-{number}",
            "description": "a huge output", "rules": ["ctx.cap.head"], "verdict": "fail",
            "message": "", "duration": 1.0, "stderr": "",
            "steps": [
                {"index": 0, "step": step, "expected": expected, "actual": actual,
                 "verdict": "fail"}
            ],
        }
        for number in range(cases)
    ])  # fmt: skip


@dataclass(frozen=True)
class Measured:
    what: str
    input_text: str
    seconds: float
    cpu_seconds: float  # user and system: what the machine's load does not inflate
    max_rss_mb: float
    page_bytes: int
    note: str = ""


def _mb(size: float) -> str:
    return f"{size / 1_000_000:,.1f} MB"


def measure_many(folder: Path, count: int) -> Measured:
    results, page = folder / "many.json", folder / "many.html"
    results.write_text(json.dumps(many_failing(count), ensure_ascii=False), encoding="utf-8")
    command = [sys.executable, "-m", "ctxconf", "report", str(results), "--html", str(page)]
    timed = [str(TIME), "-f", "%e %U %S %M", *command] if TIME.exists() else command
    started = time.perf_counter()
    done = subprocess.run(timed, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"ctxconf report failed: exit {done.returncode}\n{done.stderr}")
    rss = cpu = float("nan")
    if TIME.exists():
        wall, user, system, kilobytes = done.stderr.strip().splitlines()[-1].split()
        seconds, cpu, rss = float(wall), float(user) + float(system), int(kilobytes) / 1000
    return Measured(
        f"{count:,} failing cases",
        f"results file {_mb(results.stat().st_size)}",
        seconds,
        cpu,
        rss,
        page.stat().st_size,
        "`ctxconf report` as a subprocess, under `/usr/bin/time`",
    )


def _peak_mb() -> float:
    """This process's peak resident set. VmHWM starts afresh at exec; `ru_maxrss` would carry
    the high-water mark of the benchmark process that forked this one."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1000
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1000


def _child_huge(megabytes: int, cases: int, page: Path) -> None:
    """In a process of its own: build the document, then time `write_html` alone."""
    from ctxconf.runner.report import write_html

    doc = huge_output(megabytes, cases)
    before = _peak_mb()
    started, cpu = time.perf_counter(), time.process_time()
    write_html(doc, page)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    after = _peak_mb()
    print(json.dumps({"seconds": seconds, "cpu": cpu, "before_mb": before, "after_mb": after}))


def measure_huge(folder: Path, megabytes: int, cases: int = 1) -> Measured:
    page = folder / "huge.html"
    done = subprocess.run(
        [sys.executable, __file__, "--child-huge", str(megabytes), str(cases), str(page)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"rendering the huge output failed:\n{done.stderr}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    each = "" if cases == 1 else " (the same two in every case)"
    return Measured(
        f"one {megabytes:,} MB output"
        if cases == 1
        else f"{cases:,} cases, {megabytes:,} MB output each",
        f"expected and actual, {megabytes:,} MB each{each}",
        figures["seconds"],
        figures["cpu"],
        figures["after_mb"],
        page.stat().st_size,
        f"`write_html` in a process of its own; {figures['before_mb']:,.0f} MB resident with the "
        "inputs built, before rendering",
    )


@dataclass(frozen=True)
class Loaded:
    load_seconds: float
    nodes: int
    heap_mb: float
    unfold_seconds: float
    errors: int


def measure_browser(page: Path, profile: Path) -> Loaded:
    sys.path.insert(0, str(ROOT))
    from tests.test_report_browser import Browser

    browser = Browser(profile)
    try:
        browser.send("Performance.enable")
        started = time.perf_counter()
        browser.open(page.as_uri(), 1280)
        load_seconds = time.perf_counter() - started
        metrics = {m["name"]: m["value"] for m in browser.send("Performance.getMetrics")["metrics"]}
        started = time.perf_counter()
        answer = browser.send(  # the toggle event comes as a task of its own: wait for it
            "Runtime.evaluate",
            expression="new Promise(done => { const all = document.querySelectorAll("
            "'details.case'); const last = all[all.length - 1]; last.addEventListener("
            "'toggle', () => setTimeout(() => done(!!last.querySelector('.diff')), 0));"
            " last.open = true; })",
            awaitPromise=True,
            returnByValue=True,
        )
        shown = answer["result"].get("value")
        unfold_seconds = time.perf_counter() - started
        if not shown:
            raise RuntimeError("the last case did not fill in when unfolded")
        return Loaded(
            load_seconds,
            int(metrics.get("Nodes", 0)),
            metrics.get("JSHeapUsedSize", 0) / 1_000_000,
            unfold_seconds,
            len(browser.errors()),
        )
    finally:
        browser.close()


def section(command: str, rows: Sequence[Measured], loaded: Loaded | None) -> str:
    machine = (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )
    load = os.getloadavg()[0]
    lines = [
        START_MARKER,
        "## Report",
        "",
        f"`{command}`, {datetime.date.today().isoformat()}, {machine}, load average "
        f"{load:.2f} at the end (wall times grow with it; CPU times much less). One run each.",
        "",
        "| report of | input | wall time | CPU time | max RSS | page | how |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row.what} | {row.input_text} | {row.seconds:.2f} s | {row.cpu_seconds:.2f} s "
            f"| {row.max_rss_mb:,.0f} MB | {_mb(row.page_bytes)} | {row.note} |"
        )
    lines.append("")
    if loaded is None:
        lines.append("The page was not opened in a browser (no Chromium, or `--no-browser`).")
    else:
        lines.append(
            f"Headless Chromium opens the page of {rows[0].what} in {loaded.load_seconds:.2f} s "
            f"(to its load event; {loaded.nodes:,} DOM nodes, {loaded.heap_mb:.1f} MB script "
            f"heap, {loaded.errors} console errors) and unfolds the last case, whose details "
            f"wait in a data block, in {loaded.unfold_seconds * 1000:.0f} ms."
        )
    lines += [
        "",
        "Cases with details start folded once there are more than 20. The first 200 carry "
        "their details in the page; each later one carries a compact form in a JSON data block, "
        "made into HTML when it is unfolded: its diffs (at most 200 lines and 20,000 characters "
        "of each text), no input texts or earlier steps' texts, its rules' texts copied from the "
        "page's spec section. A text longer than 2,000 lines or 200,000 characters shows its "
        "first and last 1,000 lines with its size and sha256, and unchanged runs fold to a note; "
        "past 20 MB of diff markup in the page, a diff gives only the texts' sizes and sha256. "
        "Past the first 1,000 cases of a group the cases themselves wait in data blocks of 1,000 "
        "(shelves), put on the page by a button or by a link to one of them; the last case "
        "unfolded above is the last card on the page as it opens.",
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def write_readme(text: str) -> None:
    """Replace the Report section of the README, or append it; other sections stay."""
    write_section(README, text, (START_MARKER, END_MARKER))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000, help="failing cases (10,000)")
    parser.add_argument("--output-mb", type=int, default=100, help="size of the huge output")
    parser.add_argument("--quick", action="store_true", help="smaller inputs: a smoke run")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    parser.add_argument("--huge-cases", type=int, default=200, help="cases with a 1 MB output")
    parser.add_argument(
        "--child-huge", nargs=3, metavar=("MB", "CASES", "PAGE"), help=argparse.SUPPRESS
    )
    args = parser.parse_args(argv)
    if args.write_readme and readme.refused(README):
        return 2
    if args.child_huge:
        _child_huge(int(args.child_huge[0]), int(args.child_huge[1]), Path(args.child_huge[2]))
        return 0
    if args.quick:
        args.cases, args.output_mb, args.huge_cases = 300, 5, 20
    if args.cases < 1 or args.output_mb < 1:
        parser.error("--cases and --output-mb are at least 1")
    command = "python bench/report_bench.py" + (" --quick" if args.quick else "")
    with tempfile.TemporaryDirectory(prefix="ctxconf-report-bench-") as temporary:
        folder = Path(temporary)
        try:
            rows = [
                measure_many(folder, args.cases),
                measure_huge(folder, args.output_mb),
                measure_huge(folder, 1, args.huge_cases),
            ]
            loaded = None
            if CHROMIUM.exists() and not args.no_browser:
                loaded = measure_browser(folder / "many.html", folder / "profile")
        except RuntimeError as error:
            print(f"report_bench: {error}", file=sys.stderr)
            return 1
        finally:
            shutil.rmtree(folder / "profile", ignore_errors=True)
    text = section(command, rows, loaded)
    print(text.replace(START_MARKER + "\n", "").replace(END_MARKER + "\n", ""), end="")
    if args.write_readme and not readme.written(lambda: write_readme(text)):
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
