"""Benchmark of two inputs at scale: a case file of 100,000 cases with one schema error, and the
report page of 100,000 failing cases.

1. Validation. The twenty smallest bundled `context` cases repeated to `--cases` (100,000) under
   names of their own, about 58 MB; then `ctxconf validate FILE` as a user runs it, under
   `/usr/bin/time` (wall time, maximum resident set), on that file valid and on the same file
   with one step's op misspelt half way through. The target: the file with the error is told in
   at most 3 times the time of the valid one.
2. The page. `--cases` failing cases (report_bench's), rendered by `write_html` in a process of
   its own, as `ctxconf run --html` does (a results file that large is more than `ctxconf
   report` reads): the render's time and the page's size. With Chromium installed, the page is
   opened headless: its first contentful paint, its load event and its DOM nodes, then the time
   to follow a link to its last case (put on the page from its shelf) and unfold it. With
   `--unshelved`, the same page with every card in it, as it was before the shelves, is made and
   opened too (it takes many minutes at 100,000 cases).

    python bench/cost_bench.py                  # 100,000 cases
    python bench/cost_bench.py --quick          # 5,000 cases
    python bench/cost_bench.py --unshelved      # also the page as it was before the shelves
    python bench/cost_bench.py --write-readme   # also update bench/README.md's section

Exit codes: 0 when every measurement ran, 1 when one failed, 2 for usage.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import readme  # sibling scripts, not a package
from bench_reference import README, publish
from report_bench import CHROMIUM, ROOT, TIME, many_failing

from ctxconf.runner.report_page import SHELF_CASES
from ctxconf.specdata.paths import bundled_spec_dir

START_MARKER = "<!-- cost:start -->"
END_MARKER = "<!-- cost:end -->"
SMALLEST = 20  # bundled cases repeated into the large case file
MB = 1_000_000


@dataclass(frozen=True)
class Timed:
    seconds: float
    max_rss_mb: float
    exit_code: int
    last_line: str


def case_file(count: int, *, broken: bool) -> dict[str, Any]:
    """`count` small context cases, named apart; `broken`: one step's op misspelt half way."""
    source = json.loads(
        (bundled_spec_dir() / "conformance" / "context.json").read_text(encoding="utf-8")
    )
    smallest = sorted(source["cases"], key=lambda case: len(json.dumps(case)))[:SMALLEST]
    cases = []
    for number in range(count):
        case = copy.deepcopy(smallest[number % len(smallest)])
        case["name"] = f"{case['name']}-{number}"
        cases.append(case)
    if broken:
        cases[count // 2]["steps"][0]["op"] = "raed"
    return {**source, "cases": cases}


def timed(command: Sequence[str]) -> Timed:
    wrapped = [str(TIME), "-f", "%e %M", *command] if TIME.exists() else list(command)
    started = time.perf_counter()
    done = subprocess.run(wrapped, capture_output=True, text=True, check=False)
    seconds, rss = time.perf_counter() - started, float("nan")
    if TIME.exists():
        wall, kilobytes = done.stderr.strip().splitlines()[-1].split()
        seconds, rss = float(wall), int(kilobytes) / 1000
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return Timed(seconds, rss, done.returncode, last)


def measure_validation(folder: Path, count: int) -> tuple[int, Timed, Timed]:
    runs = []
    for broken in (False, True):
        path = folder / f"{'broken' if broken else 'valid'}.json"
        path.write_text(
            json.dumps(case_file(count, broken=broken), indent=2, ensure_ascii=False),
            encoding="utf-8",
        )
        run = timed([sys.executable, "-m", "ctxconf", "validate", str(path)])
        if run.exit_code != (1 if broken else 0):
            raise RuntimeError(f"validate {path.name} exited {run.exit_code}: {run.last_line}")
        runs.append(run)
    size = (folder / "valid.json").stat().st_size
    return size, runs[0], runs[1]


def _child_page(count: int, page: Path, shelf: int) -> None:
    """In a process of its own: build the document, then time `write_html` alone (`shelf`: the
    cards of a group in the page, the rest on shelves of as many)."""
    from ctxconf.runner import report_page
    from ctxconf.runner.report import write_html

    report_page.SHELF_CASES = shelf
    doc = many_failing(count)
    started = time.perf_counter()
    write_html(doc, page)
    print(json.dumps({"seconds": time.perf_counter() - started}))


def render_page(count: int, page: Path, shelf: int) -> float:
    done = subprocess.run(
        [sys.executable, __file__, "--child-page", str(count), str(page), str(shelf)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"rendering the page failed:\n{done.stderr}")
    return float(json.loads(done.stdout.strip().splitlines()[-1])["seconds"])


@dataclass(frozen=True)
class Opened:
    first_paint_seconds: float
    load_seconds: float
    nodes: int
    reach_seconds: float
    errors: int


# The last case's id (in the last shelf, whose cards are the page's last), then a link to it.
_LAST_CASE = r"""
new Promise(done => {
  const shelves = document.querySelectorAll("script.shelf");
  let id;
  if (shelves.length) {
    const ids = shelves[shelves.length - 1].textContent.match(/id=\\"case-[^\\"]*\\"/g);
    id = ids[ids.length - 1].slice('id=\\"'.length, -2);
  } else {
    const cards = document.querySelectorAll("details.case");
    id = cards[cards.length - 1].id;
  }
  location.hash = id;
  const began = performance.now();
  (function look() {
    const card = document.getElementById(id);
    if (card && card.open && card.querySelector(".diff")) { done(true); }
    else if (performance.now() - began > 25000) { done(false); }
    else { requestAnimationFrame(look); }
  })();
})
"""


def open_page(page: Path, profile: Path, *, patient: bool = False) -> Opened:
    """Open the page headless; `patient`: wait as long as a page of every card takes."""
    sys.path.insert(0, str(ROOT))
    from tests.runner.test_report_browser import Browser

    class Patient(Browser):
        def _receive(self, timeout: float = 3600.0) -> dict[str, Any]:
            return super()._receive(timeout)

    browser = (Patient if patient else Browser)(profile)
    try:
        browser.send("Performance.enable")
        started = time.perf_counter()
        browser.open(page.as_uri(), 1280)
        load_seconds = time.perf_counter() - started
        paint = browser.evaluate(
            "performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1"
        )
        metrics = {m["name"]: m["value"] for m in browser.send("Performance.getMetrics")["metrics"]}
        started = time.perf_counter()
        answer = browser.send(
            "Runtime.evaluate",
            expression=_LAST_CASE,
            awaitPromise=True,
            returnByValue=True,
        )
        reach_seconds = time.perf_counter() - started
        if not answer["result"].get("value"):
            raise RuntimeError("the last case could not be reached and unfolded")
        return Opened(
            float(paint) / 1000,
            load_seconds,
            int(metrics.get("Nodes", 0)),
            reach_seconds,
            len(browser.errors()),
        )
    finally:
        browser.close()


def _machine() -> str:
    return (
        f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )


def section(
    command: str,
    count: int,
    validation: tuple[int, Timed, Timed],
    page: tuple[float, int],
    opened: Opened | None,
    unshelved: tuple[float, int, Opened | None] | None = None,
) -> str:
    size, valid, broken = validation
    render_seconds, page_bytes = page
    lines = [
        START_MARKER,
        "## Cost at scale",
        "",
        f"`{command}`, {datetime.date.today().isoformat()}, {_machine()}, load average "
        f"{os.getloadavg()[0]:.2f} at the end. One run each.",
        "",
        "| input | wall time | max RSS | how |",
        "|---|---:|---:|---|",
        f"| {count:,} cases, valid ({size / MB:.1f} MB) | {valid.seconds:.2f} s | "
        f"{valid.max_rss_mb:,.0f} MB | `ctxconf validate FILE`, under `/usr/bin/time` |",
        f"| the same, one op misspelt half way | {broken.seconds:.2f} s | "
        f"{broken.max_rss_mb:,.0f} MB | the same; {broken.seconds / valid.seconds:.2f} times the "
        "valid file's time (the target: at most 3) |",
        f"| {count:,} failing cases, the page | {render_seconds:.2f} s | | `write_html` in a "
        f"process of its own; a page of {page_bytes / MB:.1f} MB |",
        "",
    ]
    if opened is None:
        lines.append("The page was not opened in a browser (no Chromium, or `--no-browser`).")
    else:
        lines.append(
            f"Headless Chromium first paints the page of {count:,} failing cases in "
            f"{opened.first_paint_seconds:.2f} s (first contentful paint; its load event after "
            f"{opened.load_seconds:.2f} s, {opened.nodes:,} DOM nodes, {opened.errors} console "
            f"errors), and follows a link to the last case, putting it on the page from its "
            f"shelf and unfolding it, in {opened.reach_seconds:.2f} s."
        )
    if unshelved is not None:
        seconds, size, before = unshelved
        lines += ["", (
            f"With every card in the page, as before the shelves (`--unshelved`): a page of "
            f"{size / MB:.1f} MB rendered in {seconds:.2f} s"
            + (
                f"; headless Chromium first paints it in {before.first_paint_seconds:.2f} s (its "
                f"load event after {before.load_seconds:.2f} s, {before.nodes:,} DOM nodes)."
                if before is not None else "."
            )
        )]  # fmt: skip
    lines += [
        "",
        "A file with a problem costs little more than a valid one because the compiled validator "
        "(jsonschema-rs) says which cases hold a problem, `jsonschema` (whose words a person "
        "reads) checks only those again, and only the values a problem names are found in the "
        "text. Before, `jsonschema` checked the whole file and every value's place was recorded: "
        "the same 100,000-case file with one error took more than 900 s here (stopped then) "
        "against 17 s valid, and 181 s against 2.6 s on a faster machine. The page holds the "
        "first 1,000 cards of a group; the rest wait in data blocks of 1,000 (shelves), put on "
        "the page by a button, or by a link to one of their cases. Before, every card was in the "
        "page, as `--unshelved` makes it; on a faster machine 100,000 failing cases made a "
        "226 MB page that headless Chromium first painted after 292 s.",
        END_MARKER,
    ]
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=100_000, help="cases (100,000)")
    parser.add_argument("--quick", action="store_true", help="5,000 cases: a smoke run")
    parser.add_argument("--no-browser", action="store_true", help="do not open the page")
    parser.add_argument("--write-readme", action="store_true", help="update bench/README.md")
    parser.add_argument(
        "--unshelved", action="store_true", help="also the page with every card in it"
    )
    parser.add_argument("--child-page", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_page:
        count, page, shelf = args.child_page
        _child_page(int(count), Path(page), int(shelf))
        return 0
    if args.write_readme and readme.refused(README):
        return 2
    count = 5_000 if args.quick else args.cases
    if count < 2:
        parser.error("--cases is at least 2")
    command = "python bench/cost_bench.py" + (" --quick" if args.quick else "")
    command += " --unshelved" if args.unshelved else ""
    with tempfile.TemporaryDirectory(prefix="ctxconf-cost-bench-") as temporary:
        folder = Path(temporary)
        try:
            validation = measure_validation(folder, count)
            browse = CHROMIUM.exists() and not args.no_browser
            page = folder / "many.html"
            render_seconds = render_page(count, page, SHELF_CASES)
            opened = open_page(page, folder / "profile") if browse else None
            unshelved = None
            if args.unshelved:
                whole = folder / "whole.html"
                seconds = render_page(count, whole, count)
                before = open_page(whole, folder / "profile-2", patient=True) if browse else None
                unshelved = (seconds, whole.stat().st_size, before)
        except RuntimeError as error:
            print(f"cost_bench: {error}", file=sys.stderr)
            return 1
        text = section(
            command, count, validation, (render_seconds, page.stat().st_size), opened, unshelved
        )
    return 0 if publish(text, (START_MARKER, END_MARKER), args.write_readme) else 2


if __name__ == "__main__":
    sys.exit(main())
