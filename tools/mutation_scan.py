"""A blind mutation scan of the reference: how many small source changes does the suite catch?

Each mutant changes one token on one line of the reference's code (`reference/**/*.py`, its
fuzzing and its decisions' other readings aside) (a comparison, an arithmetic
sign, a number, a boolean, `and`/`or`, a `reversed`); the bundled cases then run against it, and
the reference's own step checks (what `ctxconf validate` adds to the schema) read each case.
A mutant that every case passes, and whose checks find every case valid, *survived*: either the
suite misses something, or the change makes no difference (an equivalent mutant), which only
reading it tells (a check that lets an invalid case through is for the tests to catch). Unlike
the targeted mutants in tests/mutants.py, this needs no knowledge of the rules, so it finds what
they miss.

    python tools/mutation_scan.py [--show-survivors] [--under reference/history]

`--under` scans one folder or file of the reference (an area's, say); the cases of every area
still run against each mutant.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "reference"


def _sources(under: Path = REFERENCE) -> list[Path]:
    """The reference's code that runs a case: not its fuzzing, which only the fuzzer loads, nor
    its decisions' other readings, which only the runner loads to compare a failing answer."""
    skipped = {"fuzz", "fuzzing.py", "readings.py", "__pycache__"}
    found = [under] if under.is_file() else under.rglob("*.py")
    return sorted(p for p in found if not skipped & set(p.relative_to(REFERENCE).parts))


def _scanned(given: str) -> Path:
    """The folder or file `--under` names (from the repository's root or the working
    directory), which must lie inside reference/; an argparse error otherwise."""
    path = Path(given)
    candidates = [path] if path.is_absolute() else [Path.cwd() / path, ROOT / path]
    for candidate in candidates:
        resolved = candidate.resolve()
        if resolved.exists():
            if resolved != REFERENCE and REFERENCE not in resolved.parents:
                raise argparse.ArgumentTypeError(f"{given}: not inside reference/")
            if resolved.is_file() and resolved.suffix != ".py":
                raise argparse.ArgumentTypeError(f"{given}: not a Python file")
            return resolved
    raise argparse.ArgumentTypeError(f"{given}: no such file or folder")


SWAPS: list[tuple[str, str]] = [
    (r" < ", " <= "),
    (r" <= ", " < "),
    (r" > ", " >= "),
    (r" >= ", " > "),
    (r" == ", " != "),
    (r" != ", " == "),
    (r" \+ 1\b", " + 2"),
    (r" - 1\b", " - 2"),
    (r" \+ 1\b", ""),
    (r" - 1\b", ""),
    (r"\band\b", "or"),
    (r"\bor\b", "and"),
    (r"\bTrue\b", "False"),
    (r"\bFalse\b", "True"),
    (r"reversed\((.*?)\)", r"(\1)"),
    (r"\bnot ", ""),
    (r"\[-", "["),
    (r"start=1\b", "start=0"),
]


def mutants(source: str) -> list[tuple[int, str]]:
    """(line index, mutated line) for every swap that applies to a code line."""
    found = []
    in_docstring = False
    for index, line in enumerate(source.split("\n")):
        quotes = line.count('"""')
        if in_docstring or quotes:
            in_docstring = in_docstring != (quotes % 2 == 1)
            continue
        code = line.split("#", 1)[0]
        if not code.strip() or code.lstrip().startswith(
            ("def ", "class ", "from ", "import ", "@")
        ):
            continue
        for pattern, replacement in SWAPS:
            for match in re.finditer(pattern, code):
                mutated = code[: match.start()] + match.expand(replacement) + code[match.end() :]
                found.append((index, mutated + line[len(code) :]))
    return found


def load(package_dir: Path, name: str):  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location(
        name, package_dir / "__init__.py", submodule_search_locations=[str(package_dir)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def caught(module: Any, cases: list[tuple[str, Any]], loop: Any) -> bool:
    """Whether a mutated reference gives itself away: a case's texts differ from its `expect`,
    or the area's step checks refuse a bundled case, which is valid."""
    for area, case in cases:
        if module.run_area_case(area, case, loop) != case["expect"]:
            return True
        checks = module.REGISTRY[area].step_problems
        if checks is not None and any(True for _ in checks(case["steps"])):
            return True
    return False


class _TimedOut(BaseException):
    pass


def _time_out(signum: int, frame: object) -> None:
    raise _TimedOut


def main() -> int:
    signal.signal(signal.SIGALRM, _time_out)
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--show-survivors", action="store_true")
    parser.add_argument(
        "--under",
        type=_scanned,
        default=REFERENCE,
        metavar="PATH",
        help="scan only this folder or file of the reference (default: all of it)",
    )
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from ctxconf.userfiles.limits import parse_exact_float

    loop = json.loads((ROOT / "spec" / "loop.json").read_text())
    cases = [
        (doc["area"], case)
        for path in sorted((ROOT / "spec" / "conformance").glob("*.json"))
        # Numbers as ctxconf reads them (by exact decimal value), or a case fails every mutant.
        for doc in [json.loads(path.read_text(), parse_float=parse_exact_float)]
        for case in doc["cases"]
    ]
    killed, survived = 0, []
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as temp:
        # Beside every copy, as beside the reference: its checks read the bundled numbers there.
        shutil.copytree(ROOT / "spec", Path(temp) / "spec")
        for source_file in _sources(args.under):
            source = source_file.read_text()
            for number, (index, mutated) in enumerate(mutants(source)):
                relative = source_file.relative_to(REFERENCE)
                name = f"scan_{'_'.join(relative.with_suffix('').parts)}_{number}"
                target = Path(temp) / name
                shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
                lines = source.split("\n")
                original = lines[index]
                lines[index] = mutated
                (target / relative).write_text("\n".join(lines))
                signal.alarm(10)  # a mutant that loops for ever is caught too
                try:
                    found = caught(load(target, name), cases, loop)
                except (Exception, _TimedOut):
                    found = True
                finally:
                    signal.alarm(0)
                if found:
                    killed += 1
                else:
                    survived.append(
                        f"{relative}:{index + 1}: {original.strip()}  ->  {mutated.strip()}"
                    )
    total = killed + len(survived)
    scanned = args.under.relative_to(ROOT).as_posix() + ("/" if args.under.is_dir() else "")
    noun = "mutant" if total == 1 else "mutants"
    print(
        f"{total} {noun} of {scanned}: {killed} caught, {len(survived)} survived "
        f"({100 * killed / max(total, 1):.1f} % caught) in {time.perf_counter() - start:.1f}s"
    )
    if args.show_survivors:
        print("\n".join(survived))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
