"""`--expected-failures FILE`: the cases an implementation is known to fail, and why.

The file is a YAML mapping. A key is a case name or a rule anchor; the value is the reason, a
non-empty string, or a mapping with the reason and `strict`:

    reread-unchanged-is-stub: ids given by the harness are not passed through yet
    ctx.cap.head: the cap counts bytes, not characters
    ctx.stub:
      reason: stubs are half done
      strict: false

- A case name is strict: the case must fail; if it passes, that is an unexpected pass.
- A rule anchor covers the cases of that rule and of every anchor below it (`ctx.stub` covers
  `ctx.stub.range`). It is strict too unless it says `strict: false`: a case under it that
  passes is then simply a pass, so a half-done rule can be listed while its cases get fixed.
- A case listed by name and under an anchor takes the name's entry; under two anchors, the
  longer (narrower) one.

Every problem in the file is reported at once, each with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from .errors import ExpectedFailuresError
from .results import CaseResult, ExpectedFailureEntry

_CASE_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_ANCHOR = re.compile(r"^[a-z]+(?:\.[a-z0-9-]+)+$")
_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"


def is_anchor(key: str) -> bool:
    return _ANCHOR.match(key) is not None


def covers(key: str, rule: str) -> bool:
    """Whether the entry `key` covers the rule anchor `rule` (itself, or an anchor below it)."""
    return rule == key or rule.startswith(key + ".")


@dataclass(frozen=True)
class ExpectedFailures:
    path: Path | None
    entries: Mapping[str, ExpectedFailureEntry]  # case name or rule anchor -> entry
    lines: Mapping[str, int]  # where each entry is written (1-based), for messages

    @property
    def reasons(self) -> dict[str, str]:
        return {key: entry.reason for key, entry in self.entries.items()}

    def match(self, name: str, rules: Iterable[str]) -> ExpectedFailureEntry | None:
        """The entry that lists this case: its name's, else the narrowest anchor covering it."""
        if name in self.entries and not is_anchor(name):
            return self.entries[name]
        rules = tuple(rules)
        covering = [
            key for key in self.entries if is_anchor(key) and any(covers(key, r) for r in rules)
        ]
        if not covering:
            return None
        return self.entries[max(covering, key=len)]

    def reason_for(self, name: str, rules: Iterable[str]) -> str | None:
        entry = self.match(name, rules)
        return entry.reason if entry is not None else None

    def unused(self, names: Iterable[str], rules: Iterable[str] = ()) -> list[str]:
        """The entries that list no case: a name that is no case's, an anchor that covers no
        rule. (`names` may hold rule anchors too, as it did before `rules` was separate.)"""
        known = set(names) | set(rules)
        anchors = [name for name in known if is_anchor(name)]
        unused = []
        for key in self.entries:
            if is_anchor(key):
                if not any(covers(key, rule) for rule in anchors):
                    unused.append(key)
            elif key not in known:
                unused.append(key)
        return unused


NONE = ExpectedFailures(None, {}, {})


def _place(path: Path, mark: yaml.Mark | None) -> str:
    if mark is None:
        return str(path)
    return f"{path}:{mark.line + 1}:{mark.column + 1}"


def _compose(path: Path) -> yaml.Node | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise ExpectedFailuresError(f"{path}: cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ExpectedFailuresError(f"{path}: not UTF-8 text: {error}") from None
    try:
        node: yaml.Node | None = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        raise ExpectedFailuresError(f"{_place(path, mark)}: not valid YAML: {problem}") from None
    return node


def _entry(
    path: Path, key: str, node: yaml.Node, problems: list[str]
) -> ExpectedFailureEntry | None:
    """The entry a value node describes, or None after adding its problems."""
    place = _place(path, node.start_mark)
    if isinstance(node, yaml.ScalarNode) and node.tag == _STR:
        if not str(node.value).strip():
            problems.append(f"{place}: the reason for {key!r} is empty")
            return None
        return ExpectedFailureEntry(key, str(node.value))
    if not isinstance(node, yaml.MappingNode):
        problems.append(
            f"{place}: the reason for {key!r} must be a string, or a mapping with reason "
            "(and strict: false for a rule anchor)"
        )
        return None
    fields: dict[str, yaml.Node] = {}
    for field_node, value in node.value:
        field = str(field_node.value) if isinstance(field_node, yaml.ScalarNode) else ""
        if field not in ("reason", "strict"):
            problems.append(
                f"{_place(path, field_node.start_mark)}: {key!r} has an unknown field "
                f"{field or '(not a name)'!r}: only reason and strict"
            )
            continue
        fields[field] = value
    reason = fields.get("reason")
    strict = fields.get("strict")
    ok = True
    if reason is None:
        problems.append(f"{place}: {key!r} has no reason")
        ok = False
    elif not (isinstance(reason, yaml.ScalarNode) and reason.tag == _STR and reason.value.strip()):
        problems.append(f"{_place(path, reason.start_mark)}: the reason for {key!r} must be text")
        ok = False
    strict_value = True
    if strict is not None:
        if not (isinstance(strict, yaml.ScalarNode) and strict.tag == _BOOL):
            problems.append(f"{_place(path, strict.start_mark)}: strict must be true or false")
            ok = False
        else:
            strict_value = str(strict.value).lower() in ("true", "yes", "on")
            if not strict_value and not is_anchor(key):
                problems.append(
                    f"{_place(path, strict.start_mark)}: {key!r} is a case name, and a case "
                    "name is always strict: once the case passes, take it off the list"
                )
                ok = False
    if not ok or reason is None:
        return None
    return ExpectedFailureEntry(key, str(reason.value), strict_value)


def load_expected_failures(path: Path) -> ExpectedFailures:
    root = _compose(path)
    if root is None:
        return ExpectedFailures(path, {}, {})
    if not isinstance(root, yaml.MappingNode):
        raise ExpectedFailuresError(
            f"{_place(path, root.start_mark)}: expected a mapping of case name or rule anchor "
            f"to reason, found a {'list' if isinstance(root, yaml.SequenceNode) else 'scalar'}"
        )
    problems: list[str] = []
    entries: dict[str, ExpectedFailureEntry] = {}
    lines: dict[str, int] = {}
    for key_node, value_node in root.value:
        key_place = _place(path, key_node.start_mark)
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != _STR:
            problems.append(f"{key_place}: a key must be a case name or a rule anchor")
            continue
        key = str(key_node.value)
        if not (_CASE_NAME.match(key) or is_anchor(key)):
            problems.append(
                f"{key_place}: {key!r} is neither a case name (kebab-case) "
                "nor a rule anchor (like ctx.stub.range)"
            )
        elif key in entries:
            problems.append(f"{key_place}: {key!r} is listed twice (first on line {lines[key]})")
        entry = _entry(path, key, value_node, problems)
        if entry is not None and key not in entries:
            entries[key] = entry
            lines[key] = key_node.start_mark.line + 1
    if problems:
        count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
        raise ExpectedFailuresError(f"{path}: {count}:\n" + "\n".join(f"  {p}" for p in problems))
    return ExpectedFailures(path, entries, lines)


def _why(case: CaseResult) -> str:
    """The verdict and the first line of what went wrong, as a reason to commit."""
    if case.verdict == "expected-failure" and case.expected_failure is not None:
        return case.expected_failure.reason  # the reason already written down stays
    first = case.message.strip().split("\n", 1)[0]
    if not first:
        failed = [s for s in case.steps if s.verdict in ("fail", "equivalent-diff")]
        shown = ", ".join(f"{s.index} ({s.step.get('op')})" for s in failed[:3])
        first = f"step {shown} differs" if len(failed) == 1 else f"steps {shown} differ"
        first = first if failed else "no output"
    return f"{case.verdict}: {first}"


def failures_yaml(cases: Iterable[CaseResult], header: str) -> str:
    """A --expected-failures file listing, by case name, every case of `cases` that did not
    pass (expected failures included), each with its verdict and first line as the reason."""
    reasons = {
        case.name: _why(case)
        for case in cases
        if case.verdict in ("fail", "equivalent-diff", "error", "timeout", "crash")
        or case.verdict == "expected-failure"
    }
    body = (
        yaml.safe_dump(reasons, sort_keys=False, allow_unicode=True, width=1000)
        if reasons
        else "{}\n"
    )
    comment = "".join(f"# {line}\n" for line in header.splitlines())
    return comment + body
