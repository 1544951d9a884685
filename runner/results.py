"""A run's results: dataclasses, and the results file (format 1) they are written to and read from.

The file has a header (what ran against what), the cases in order, and a footer (totals and the
exit code). It is written as the run goes, one case to a line, into a temporary file beside the
results file (`.results.json.XXXX.tmp`), which replaces the results file once the footer is
written: the previous results stay whole until then. An interrupted run still writes its footer,
marked `"interrupted": true`, over the cases it finished. `schemas/results.schema.json` describes
the file; `load` validates against it. The HTML report is rendered from this file only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, Literal

from ctxconf.userfiles.atomic import OutputError, PendingFile
from ctxconf.userfiles.limits import MAX_SPEC_FILE_BYTES, LimitError, dumps, parse_json

from .errors import ResultsFileError
from .transports.base import START_SECONDS

FORMAT = "ctxconf-results"
FORMAT_VERSION = 1

CaseVerdict = Literal[
    "pass", "fail", "equivalent-diff", "error", "timeout", "crash", "skipped",
    "expected-failure", "unexpected-pass",
]  # fmt: skip
StepVerdict = Literal["pass", "fail", "equivalent-diff", "not-run"]

CASE_VERDICTS: tuple[CaseVerdict, ...] = (
    "pass", "fail", "equivalent-diff", "error", "timeout", "crash", "skipped",
    "expected-failure", "unexpected-pass",
)  # fmt: skip
# The verdicts that leave a run successful (exit code 0).
OK_VERDICTS: frozenset[CaseVerdict] = frozenset({"pass", "skipped", "expected-failure"})
# The verdicts of an implementation that misbehaved rather than answered wrongly.
TROUBLE_VERDICTS: frozenset[CaseVerdict] = frozenset({"error", "timeout", "crash"})


@dataclass(frozen=True)
class ImplementationInfo:
    name: str
    version: str
    language: str


@dataclass(frozen=True)
class Options:
    jobs: int
    timeout: float
    k: str | None
    accept_equivalent_diffs: bool
    expected_failures: str | None
    start_timeout: float = START_SECONDS  # files written before it was recorded had this one


@dataclass(frozen=True)
class Header:
    ctxconf_version: str
    spec_version: str
    spec_dir: str
    impl: str
    implementation: ImplementationInfo
    areas: tuple[str, ...]
    started: str
    options: Options


@dataclass(frozen=True)
class StepResult:
    index: int
    step: Mapping[str, Any]
    expected: str
    actual: str | None
    verdict: StepVerdict
    message: str = ""  # the implementation's error for this step alone, when it sent one


@dataclass(frozen=True)
class ExpectedFailureEntry:
    """The --expected-failures entry that matched a case: its key, reason and strictness."""

    entry: str
    reason: str
    strict: bool = True


@dataclass(frozen=True)
class CaseResult:
    area: str
    file: str
    name: str
    description: str
    rules: tuple[str, ...]
    verdict: CaseVerdict
    message: str
    duration: float
    stderr: str
    steps: tuple[StepResult, ...]
    expected_failure: ExpectedFailureEntry | None = None

    @property
    def ok(self) -> bool:
        return self.verdict in OK_VERDICTS


@dataclass(frozen=True)
class ReadOtherwise:
    """A decision whose every case in the run failed with the other reading's answers."""

    decision: str  # its anchor
    cases: tuple[str, ...]  # the names of its cases, in run order


@dataclass(frozen=True)
class Footer:
    finished: str
    duration: float
    totals: Mapping[str, int]
    exit_code: int
    interrupted: bool = False  # the run was stopped (Ctrl-C, SIGTERM, SIGHUP) before its end
    read_otherwise: tuple[ReadOtherwise, ...] = ()  # decisions read the other way (evidence)


@dataclass(frozen=True)
class Results:
    header: Header
    cases: tuple[CaseResult, ...]
    footer: Footer

    def to_json(self) -> dict[str, Any]:
        """The results file's document, as `load` reads it back."""
        return results_to_json(self)


def totals(cases: Iterable[CaseResult]) -> dict[str, int]:
    counts: dict[str, int] = dict.fromkeys(CASE_VERDICTS, 0)
    for case in cases:
        counts[case.verdict] += 1
    return counts


def exit_code(cases: Iterable[CaseResult]) -> int:
    return 0 if all(case.ok for case in cases) else 1


# -- to and from JSON ----------------------------------------------------------------------


def header_to_json(header: Header) -> dict[str, Any]:
    return {
        "ctxconf_version": header.ctxconf_version,
        "spec_version": header.spec_version,
        "spec_dir": header.spec_dir,
        "impl": header.impl,
        "implementation": {
            "name": header.implementation.name,
            "version": header.implementation.version,
            "language": header.implementation.language,
        },
        "areas": list(header.areas),
        "started": header.started,
        "options": {
            "jobs": header.options.jobs,
            "timeout": header.options.timeout,
            "start_timeout": header.options.start_timeout,
            "k": header.options.k,
            "accept_equivalent_diffs": header.options.accept_equivalent_diffs,
            "expected_failures": header.options.expected_failures,
        },
    }


def case_to_json(case: CaseResult) -> dict[str, Any]:
    return {
        "area": case.area,
        "file": case.file,
        "name": case.name,
        "description": case.description,
        "rules": list(case.rules),
        "verdict": case.verdict,
        "message": case.message,
        "duration": round(case.duration, 6),
        "stderr": case.stderr,
        "steps": [
            {
                "index": step.index,
                "step": dict(step.step),
                "expected": step.expected,
                "actual": step.actual,
                "verdict": step.verdict,
                **({"message": step.message} if step.message else {}),
            }
            for step in case.steps
        ],
        "expected_failure": None
        if case.expected_failure is None
        else {
            "entry": case.expected_failure.entry,
            "reason": case.expected_failure.reason,
            "strict": case.expected_failure.strict,
        },
    }


def footer_to_json(footer: Footer) -> dict[str, Any]:
    return {
        "finished": footer.finished,
        "duration": round(footer.duration, 6),
        "totals": dict(footer.totals),
        "exit_code": footer.exit_code,
        "interrupted": footer.interrupted,
        "read_otherwise": [
            {"decision": item.decision, "cases": list(item.cases)} for item in footer.read_otherwise
        ],
    }


def results_to_json(results: Results) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "header": header_to_json(results.header),
        "cases": [case_to_json(case) for case in results.cases],
        "footer": footer_to_json(results.footer),
    }


def results_from_json(data: Mapping[str, Any]) -> Results:
    """Results from a parsed file that already passed the schema."""
    h = data["header"]
    header = Header(
        ctxconf_version=h["ctxconf_version"],
        spec_version=h["spec_version"],
        spec_dir=h["spec_dir"],
        impl=h["impl"],
        implementation=ImplementationInfo(**h["implementation"]),
        areas=tuple(h["areas"]),
        started=h["started"],
        options=Options(**h["options"]),
    )
    cases = tuple(
        CaseResult(
            area=c["area"],
            file=c["file"],
            name=c["name"],
            description=c["description"],
            rules=tuple(c["rules"]),
            verdict=c["verdict"],
            message=c["message"],
            duration=c["duration"],
            stderr=c["stderr"],
            steps=tuple(
                StepResult(
                    s["index"],
                    s["step"],
                    s["expected"],
                    s["actual"],
                    s["verdict"],
                    s.get("message", ""),
                )
                for s in c["steps"]
            ),
            expected_failure=ExpectedFailureEntry(**c["expected_failure"])
            if c.get("expected_failure")
            else None,
        )
        for c in data["cases"]
    )
    f = data["footer"]
    footer = Footer(
        f["finished"],
        f["duration"],
        dict(f["totals"]),
        f["exit_code"],
        f.get("interrupted", False),
        tuple(
            ReadOtherwise(item["decision"], tuple(item["cases"]))
            for item in f.get("read_otherwise", [])
        ),
    )
    return Results(header, cases, footer)


# -- the file ------------------------------------------------------------------------------


def _line(value: object) -> str:
    return dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _doubles(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: _doubles(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_doubles(item) for item in value]
    return value


def _steps_exact(data: Any) -> Any:
    """A results file's data with the cases' steps as they were sent, numbers by their exact
    decimal value (`12345678901234567890.0` is no double), and every other number (durations,
    counts) a double as the run wrote it."""
    if not isinstance(data, dict) or not isinstance(data.get("cases"), list):
        return _doubles(data)
    return {
        key: [_case_steps_exact(case) for case in value] if key == "cases" else _doubles(value)
        for key, value in data.items()
    }


def _case_steps_exact(case: Any) -> Any:
    if not isinstance(case, dict):
        return _doubles(case)
    return {key: item if key == "steps" else _doubles(item) for key, item in case.items()}


class ResultsNotWritten(OutputError):
    """The run ended, but its results file could not be written (no space, no permission): the
    message names the file; `results` are the run's, for the summary."""

    def __init__(self, error: OutputError, results: Results) -> None:
        super().__init__(error.message, hint=error.hint)
        self.results = results


class ResultsWriter:
    """Writes a results file as the run goes: the header, each case as it is known, the footer.

    The text goes to a temporary file in the same folder; `finish` moves it into place, so the
    file at `path` is always a whole results file (the previous one until the run ends). A write
    that fails mid-run drops the temporary file and lets the run go on; `finish` raises it."""

    def __init__(self, path: Path, header: Header) -> None:
        self.path = path
        self._file = PendingFile(path)
        self._count = 0
        self._error: OutputError | None = None
        self._file.write(
            f'{{"format": "{FORMAT}", "format_version": {FORMAT_VERSION},\n'
            f'"header": {_line(header_to_json(header))},\n"cases": ['
        )

    def add(self, case: CaseResult) -> None:
        if self._error is not None:
            return
        try:
            self._file.write(("\n" if self._count == 0 else ",\n") + _line(case_to_json(case)))
        except OutputError as error:  # the disk filled: the run goes on, its end says so
            self._error = error
            return
        self._count += 1

    def finish(self, footer: Footer) -> None:
        if self._error is not None:
            raise self._error
        self._file.write(f'\n],\n"footer": {_line(footer_to_json(footer))}}}\n')
        self._file.commit()

    def abandon(self) -> None:
        """Drop the file of a run that could not go on; the previous results stay."""
        self._file.abandon()


def dump(results: Results, path: Path) -> None:
    writer = ResultsWriter(path, results.header)
    try:
        for case in results.cases:
            writer.add(case)
        writer.finish(results.footer)
    except BaseException:
        writer.abandon()
        raise


@cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    from ctxconf.specdata.paths import schemas_dir

    schema = json.loads((schemas_dir() / "results.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def schema_problems(data: object) -> list[str]:
    """Every way `data` breaks the results schema, each with its place ("" when none)."""
    problems = []
    for error in sorted(_validator().iter_errors(data), key=lambda e: list(e.absolute_path)):
        where = "/".join(str(part) for part in error.absolute_path) or "(top)"
        problems.append(f"{where}: {error.message}")
    return problems


def load(path: Path) -> Results:
    """Read a results file back, validating it; ResultsFileError on any problem."""
    try:
        size = path.stat().st_size
        if size > MAX_SPEC_FILE_BYTES:
            raise ResultsFileError(
                f"{path}: {size:,} bytes, more than a results file may be ({MAX_SPEC_FILE_BYTES:,})"
            )
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ResultsFileError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ResultsFileError(f"{path}: not UTF-8: {error}") from None
    cut_short = ResultsFileError(
        f"{path}: the file has no footer: the run that wrote it was cut short",
        hint="run `ctxconf run` again and let it finish",
    )
    try:
        data = _steps_exact(parse_json(text, exact=True))
    except LimitError as error:
        raise ResultsFileError(f"{path}: refused: {error}") from None
    except json.JSONDecodeError as error:
        if text.startswith(f'{{"format": "{FORMAT}"') and '\n"footer": ' not in text:
            raise cut_short from None
        raise ResultsFileError(
            f"{path}:{error.lineno}:{error.colno}: not JSON: {error.msg}"
        ) from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ResultsFileError(f'{path}: not a ctxconf results file (no "format": "{FORMAT}")')
    if data.get("format_version") != FORMAT_VERSION:
        raise ResultsFileError(
            f"{path}: results format version {data.get('format_version')!r}; "
            f"this ctxconf reads version {FORMAT_VERSION}"
        )
    if "footer" not in data:
        raise cut_short
    problems = schema_problems(data) or duplicate_cases(data["cases"])
    if problems:
        shown = "\n".join(f"  {p}" for p in problems[:20])
        more = f"\n  … and {len(problems) - 20} more" if len(problems) > 20 else ""
        raise ResultsFileError(f"{path}: not a valid results file:\n{shown}{more}")
    return results_from_json(data)


def duplicate_cases(cases: list[dict[str, Any]]) -> list[str]:
    """A case given more than once (by area and name), with where: a run writes each case once,
    so such a file was put together by hand, and its counts and comparisons would be wrong."""
    where: dict[tuple[str, str], list[int]] = {}
    for index, case in enumerate(cases):
        where.setdefault((case["area"], case["name"]), []).append(index)
    return [
        f"cases/{places[0]}: the case {area}/{name} is given {len(places)} times "
        f"(cases {', '.join(map(str, places))}); a run writes each case once"
        for (area, name), places in where.items()
        if len(places) > 1
    ]


load_results = load  # the name the report module looks for
