"""`--expected-failures FILE`: the cases an implementation is known to fail, and why.

The file is a YAML mapping from a case name or a rule anchor to the reason, a non-empty string:

    reread-unchanged-is-stub: ids given by the harness are not passed through yet
    ctx.cap.head: the cap counts bytes, not characters (#214)

A case is expected to fail when its name, or one of its rule anchors, is listed. Every problem
in the file is reported at once, each with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import ExpectedFailuresError

_KEY = re.compile(r"^(?:[a-z0-9]+(?:-[a-z0-9]+)*|[a-z]+(?:\.[a-z0-9-]+)+)$")


@dataclass(frozen=True)
class ExpectedFailures:
    path: Path | None
    reasons: Mapping[str, str]  # case name or rule anchor -> reason
    lines: Mapping[str, int]  # where each entry is written (1-based), for messages

    def reason_for(self, name: str, rules: Iterable[str]) -> str | None:
        if name in self.reasons:
            return self.reasons[name]
        for rule in rules:
            if rule in self.reasons:
                return self.reasons[rule]
        return None

    def unused(self, names: Iterable[str]) -> list[str]:
        """The entries that match none of `names` (case names and rule anchors)."""
        known = set(names)
        return [key for key in self.reasons if key not in known]


NONE = ExpectedFailures(None, {}, {})


def _place(path: Path, mark: yaml.Mark | None) -> str:
    if mark is None:
        return str(path)
    return f"{path}:{mark.line + 1}:{mark.column + 1}"


def load_expected_failures(path: Path) -> ExpectedFailures:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ExpectedFailuresError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ExpectedFailuresError(f"{path}: not UTF-8 text: {error}") from None
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise ExpectedFailuresError(f"{_place(path, mark)}: not valid YAML: {problem}") from None
    if root is None:
        return ExpectedFailures(path, {}, {})
    if not isinstance(root, yaml.MappingNode):
        raise ExpectedFailuresError(
            f"{_place(path, root.start_mark)}: expected a mapping of case name or rule anchor "
            f"to reason, found a {'list' if isinstance(root, yaml.SequenceNode) else 'scalar'}"
        )
    problems: list[str] = []
    reasons: dict[str, str] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in root.value:
        key_place = _place(path, key_node.start_mark)
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
            problems.append(f"{key_place}: a key must be a case name or a rule anchor")
            continue
        key = str(key_node.value)
        if not _KEY.match(key):
            problems.append(
                f"{key_place}: {key!r} is neither a case name (kebab-case) "
                "nor a rule anchor (like ctx.stub.range)"
            )
        elif key in reasons:
            problems.append(f"{key_place}: {key!r} is listed twice (first on line {lines[key]})")
        value_place = _place(path, value_node.start_mark)
        if not isinstance(value_node, yaml.ScalarNode) or value_node.tag != "tag:yaml.org,2002:str":
            problems.append(f"{value_place}: the reason for {key!r} must be a string")
            continue
        if not str(value_node.value).strip():
            problems.append(f"{value_place}: the reason for {key!r} is empty")
            continue
        if key not in reasons:
            reasons[key] = str(value_node.value)
            lines[key] = key_node.start_mark.line + 1
    if problems:
        raise ExpectedFailuresError(
            f"{path}: {len(problems)} problem(s):\n" + "\n".join(f"  {p}" for p in problems)
        )
    return ExpectedFailures(path, reasons, lines)
