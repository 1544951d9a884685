"""The decisions of the spec text: the points the source left open, each a rule of its own.

A rule is a decision when the first line of its text begins ``Decision:``. Each such rule has a
row in its text's Decisions table, whose header is exactly `TABLE_HEADER`:

    | decision | question | this version | other reading | cases |
    | [`ctx.a.b`](#link) | A point left open | This reading | The other | `case-a`, `case-b` |

Linters hold the rules, the rows and the cases' ``rules`` together (`decision_findings`); the
report reads the two readings from the row to name a decision an implementation read otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ctxconf.spectext.finding import Finding
from ctxconf.spectext.rules import ANCHOR_PATTERN, Rule, load_rules, spec_files
from ctxconf.userfiles.document import SpecFileError, read_text_file

MARK = "Decision:"
TABLE_HEADER = ("decision", "question", "this version", "other reading", "cases")
_ANCHOR_CELL = re.compile(rf"^\[`(?P<anchor>{ANCHOR_PATTERN})`\]\(#[^)\s]*\)$")
_CASE_NAME = re.compile(r"`([^`]+)`")
# A cell boundary is a `|` not escaped with a backslash.
_CELL_SPLIT = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class Decision:
    """One row of a Decisions table."""

    anchor: str
    question: str
    reading: str  # what this version decided
    other: str  # the other reading, as reasonable, that the spec did not take
    cases: tuple[str, ...]
    line: int  # 1-based line of the row
    path: Path | None = None


def is_decision(rule: Rule) -> bool:
    """Whether the rule's text opens with the decision mark."""
    return rule.text.lstrip().startswith(MARK)


def _cells(line: str) -> list[str]:
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in _CELL_SPLIT.split(inner)]


def parse_decisions(text: str, path: Path | None = None) -> tuple[list[Decision], list[int]]:
    """The rows of every Decisions table in one markdown text, and the lines of rows whose first
    cell is not a linked anchor."""
    rows: list[Decision] = []
    bad: list[int] = []
    lines = text.split("\n")
    in_table = False
    for number, line in enumerate(lines, start=1):
        if not line.lstrip().startswith("|"):
            in_table = False
            continue
        cells = _cells(line)
        if tuple(cell.lower() for cell in cells) == TABLE_HEADER:
            in_table = True
            continue
        if not in_table or set(line.replace("|", "").strip()) <= {"-", ":", " "}:
            continue
        match = _ANCHOR_CELL.match(cells[0]) if len(cells) == len(TABLE_HEADER) else None
        if match is None:
            bad.append(number)
            continue
        rows.append(
            Decision(
                anchor=match.group("anchor"),
                question=cells[1],
                reading=cells[2],
                other=cells[3],
                cases=tuple(_CASE_NAME.findall(cells[4])),
                line=number,
                path=path,
            )
        )
    return rows, bad


def load_decisions(spec_dir: Path) -> dict[str, Decision]:
    """Every decision row of a spec folder's texts, by anchor (the first row of an anchor wins);
    a text that cannot be read adds none."""
    found: dict[str, Decision] = {}
    for path in spec_files(spec_dir):
        try:
            text = read_text_file(path)
        except SpecFileError:
            continue
        for row in parse_decisions(text, path)[0]:
            found.setdefault(row.anchor, row)
    return found


def decision_findings(
    spec_dir: Path, cases: Iterable[tuple[str, Sequence[str]]]
) -> Iterator[Finding]:
    """Where the decision marks, the Decisions tables and the cases' rules disagree.

    `cases` are (name, rules) of every case of the spec folder.
    """
    rules = load_rules(spec_dir, strict=False)
    tagged: dict[str, list[str]] = {}
    for name, anchors in cases:
        for anchor in anchors:
            tagged.setdefault(anchor, []).append(name)
    seen: set[str] = set()
    for path in spec_files(spec_dir):
        try:
            text = read_text_file(path)
        except SpecFileError:
            continue  # the spec reader reports it with its place
        rows, bad = parse_decisions(text, path)
        for line in bad:
            yield Finding(
                str(path),
                line,
                "a Decisions row must be: | [`anchor`](#link) | question | "
                "this version | other reading | cases |",
            )
        for row in rows:
            rule = rules.get(row.anchor)
            if row.anchor in seen:
                yield Finding(str(path), row.line, f"decision {row.anchor} has two rows")
                continue
            seen.add(row.anchor)
            if rule is None:
                message = f"decision {row.anchor} is no rule of the spec text"
                yield Finding(str(path), row.line, message)
                continue
            if not is_decision(rule):
                message = f"rule {row.anchor} has a Decisions row but no line '{MARK} …'"
                yield Finding(str(path), row.line, message)
            expected = tagged.get(row.anchor, [])
            if sorted(row.cases) != sorted(expected):
                listed = ", ".join(expected) or "none"
                message = f"decision {row.anchor} lists other cases than those tagged: {listed}"
                yield Finding(str(path), row.line, message)
    for anchor, rule in rules.items():
        if is_decision(rule) and anchor not in seen:
            where = str(rule.path) if rule.path else "spec"
            message = f"rule {anchor} is marked '{MARK}' but has no row in a Decisions table"
            yield Finding(where, rule.line, message)


def decisions_of(rules: Mapping[str, Rule]) -> list[str]:
    """The anchors of the rules marked as decisions, in their order."""
    return [anchor for anchor, rule in rules.items() if is_decision(rule)]
