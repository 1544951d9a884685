"""The rules of the spec text: each is a heading ``### `ctx.stub.range` Short title`` and its text.

The report embeds them (and links each case's anchors to them); linters check that cases and the
spec name the same anchors, and use `Rule.line` to point at the heading.

Errors: `SpecRulesError` (code ``spec-rules``) carries every problem found in one pass — a
duplicate anchor, or a level-3 heading that starts like a rule but is not of the exact form.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from ctxconf.userfiles.document import SpecFileError, read_text_file

ANCHOR_PATTERN = r"[a-z]+(?:\.[a-z0-9-]+)+"
_RULE_HEADING = re.compile(rf"^### `(?P<anchor>{ANCHOR_PATTERN})` (?P<title>\S.*?)\s*$")
_ANY_HEADING = re.compile(r"^ {0,3}#{1,6}(?:\s|$)")
# A heading that opens with dotted code, as if it meant to declare a rule, but misses the form.
_RULE_LIKE = re.compile(r"^ {0,3}#{1,6}\s+`[^`\s]*\.[^`\s]*`")
_FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})")


@dataclass(frozen=True)
class Rule:
    """One rule of the spec: its anchor, title, text (blank lines trimmed) and heading line."""

    anchor: str
    title: str
    text: str
    line: int  # 1-based line of the heading in its file
    path: Path | None = None  # the markdown file, when read from one


@dataclass(frozen=True)
class RuleProblem:
    path: Path | None
    line: int
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.path else f"line {self.line}"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class SpecRulesError(Exception):
    problems: tuple[RuleProblem, ...]
    code: str = "spec-rules"
    hint: str = "declare each rule once, as a heading: ### `ctx.area.name` Short title"

    def __str__(self) -> str:
        return "\n".join(str(problem) for problem in self.problems)


def _scan(text: str, path: Path | None) -> tuple[dict[str, Rule], list[RuleProblem]]:
    rules: dict[str, Rule] = {}
    problems: list[RuleProblem] = []
    current: tuple[str, str, int] | None = None
    body: list[str] = []
    fence: str | None = None

    def close() -> None:
        if current is None:
            return
        anchor, title, line = current
        if anchor in rules:
            first = rules[anchor].line
            problems.append(
                RuleProblem(path, line, f"rule {anchor} already declared at line {first}")
            )
            return
        rules[anchor] = Rule(anchor, title, "\n".join(body).strip("\n"), line, path)

    for number, line in enumerate(text.splitlines(), start=1):
        if fence is not None:
            # Inside a fenced block nothing is a heading; the block ends on the same fence kind.
            stripped = line.strip()
            if stripped.startswith(fence) and set(stripped) == {fence[0]}:
                fence = None
            body.append(line)
            continue
        opening = _FENCE.match(line)
        if opening:
            fence = opening.group("fence")
            body.append(line)
            continue
        if not _ANY_HEADING.match(line):
            body.append(line)
            continue
        close()
        current, body = None, []
        match = _RULE_HEADING.match(line)
        if match:
            current = (match.group("anchor"), match.group("title"), number)
        elif _RULE_LIKE.match(line):
            problems.append(
                RuleProblem(
                    path, number, f"heading is not of the form ### `anchor` Title: {line!r}"
                )
            )
    close()
    return rules, problems


def parse_rules(text: str, path: Path | None = None) -> dict[str, Rule]:
    """The rules declared in one markdown text, in their order; raises `SpecRulesError`."""
    rules, problems = _scan(text, path)
    if problems:
        raise SpecRulesError(tuple(problems))
    return rules


def markdown_files(spec_dir: Path) -> list[Path]:
    """Every markdown file at the top level of a spec folder, by name (dot-files are an
    editor's, not the spec's)."""
    return sorted(p for p in spec_dir.glob("*.md") if not p.name.startswith("."))


def spec_files(spec_dir: Path) -> list[Path]:
    """Every readable markdown file at the top level of a spec folder, by name."""
    return [p for p in markdown_files(spec_dir) if os.path.isfile(p)]


def unreadable_texts(spec_dir: Path) -> list[SpecFileError]:
    """Why each spec text of a spec folder that cannot be read as UTF-8 text cannot be: a folder
    or a FIFO named `context.md`, a file it may not read, bytes that are not UTF-8. A command
    that needs the rules refuses with the first; one they only decorate warns with each."""
    problems = []
    for path in markdown_files(spec_dir):
        try:
            read_text_file(path)
        except SpecFileError as error:
            problems.append(error)
    return problems


def load_rules(spec_dir: Path, *, strict: bool = True) -> dict[str, Rule]:
    """The rules of every top-level `*.md` of a spec folder, file by file.

    With ``strict=False`` problems are ignored and the first declaration of an anchor wins: the
    report still renders against a spec that a linter would reject.
    """
    rules: dict[str, Rule] = {}
    problems: list[RuleProblem] = []
    for path in spec_files(spec_dir):
        try:
            text = read_text_file(path)
        except SpecFileError as error:
            if strict:
                raise
            problems.append(RuleProblem(path, error.line or 1, error.reason))
            continue
        found, file_problems = _scan(text, path)
        problems.extend(file_problems)
        for anchor, rule in found.items():
            if anchor in rules:
                earlier = rules[anchor]
                problems.append(
                    RuleProblem(
                        path,
                        rule.line,
                        f"rule {anchor} already declared in {earlier.path}:{earlier.line}",
                    )
                )
            else:
                rules[anchor] = rule
    if problems and strict:
        raise SpecRulesError(tuple(problems))
    return rules
