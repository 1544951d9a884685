"""Time `regen` over a case file of many stale cases: the splice of every edit is one pass.

    python bench/regen_bench.py [--cases 4000]

Builds a copy of the bundled spec whose context.json holds N cases (copies of the bundled ones,
renamed) with every expected text stale, then times reading, regenerating and writing it.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.reader import read_loop
from ctxconf.spectools.regen import regenerate
from ctxconf.userfiles import limits


def stale_spec(folder: Path, count: int) -> Path:
    spec = folder / "spec"
    shutil.copytree(bundled_spec_dir(), spec)
    path = spec / "conformance" / "context.json"
    data = limits.parse_json(path.read_text(encoding="utf-8"), exact=True)
    # Authors' cases are never rewritten by default, so only the others are copied.
    seeds = [case for case in data["cases"] if case.get("origin") != "authors"]
    cases = []
    for index in range(count):
        case = dict(seeds[index % len(seeds)], name=f"{seeds[index % len(seeds)]['name']}-{index}")
        case["expect"] = ["stale"] * len(case["steps"])
        cases.append(case)
    data["cases"] = cases
    path.write_text(limits.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=4000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        spec = stale_spec(Path(temp), args.cases)
        path = spec / "conformance" / "context.json"
        size = path.stat().st_size
        started = time.perf_counter()
        result = regenerate([path], read_loop(spec), check=False)
        seconds = time.perf_counter() - started
    changed = sum(len(change.steps) for change in result.changes)
    print(
        f"regen: {len(result.changes):,} stale cases ({changed:,} texts, {size / 1e6:.1f} MB) "
        f"rewritten in {seconds:.2f} s"
    )


if __name__ == "__main__":
    main()
