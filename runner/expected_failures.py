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

The file is read by the shared user-YAML reader (bounded nesting and aliases, JSON values only);
every problem in it is reported at once, each with its line and column.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ctxconf.userfiles.document import SpecFileError, display
from ctxconf.userfiles.jsonpos import escape
from ctxconf.userfiles.useryaml import UserYaml, load_user_yaml

from .errors import ExpectedFailuresError
from .results import CaseResult, ExpectedFailureEntry

_CASE_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_ANCHOR = re.compile(r"^[a-z]+(?:\.[a-z0-9-]+)+$")


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


def _type(value: object) -> str:
    names = {
        dict: "a mapping",
        list: "a list",
        bool: "a boolean",
        int: "a number",
        float: "a number",
    }
    return "null" if value is None else names.get(type(value), type(value).__name__)


def _entry(
    document: UserYaml, key: str, value: Any, problems: list[str]
) -> ExpectedFailureEntry | None:
    """The entry a value describes, or None after adding its problems."""
    at = "/" + escape(key)
    place = document.place(at)
    if isinstance(value, str):
        if not value.strip():
            problems.append(f"{place}: the reason for {key!r} is empty")
            return None
        return ExpectedFailureEntry(key, value)
    if not isinstance(value, dict):
        problems.append(
            f"{place}: the reason for {key!r} must be a string, or a mapping with reason "
            f"(and strict: false for a rule anchor), not {_type(value)}"
        )
        return None
    ok = True
    for field in value:
        if field not in ("reason", "strict"):
            problems.append(
                f"{document.place(at + '/' + escape(field))}: {key!r} has an unknown field "
                f"{field!r}: only reason and strict"
            )
            ok = False
    reason, strict = value.get("reason"), value.get("strict", True)
    if not isinstance(reason, str) or not reason.strip():
        problems.append(f"{document.place(at + '/reason')}: {key!r} needs a reason (text)")
        ok = False
    if not isinstance(strict, bool):
        problems.append(f"{document.place(at + '/strict')}: strict must be true or false")
        ok = False
    elif not strict and not is_anchor(key):
        problems.append(
            f"{document.place(at + '/strict')}: {key!r} is a case name, and a case name is "
            "always strict: once the case passes, take it off the list"
        )
        ok = False
    if not ok or not isinstance(reason, str) or not isinstance(strict, bool):
        return None
    return ExpectedFailureEntry(key, reason, strict)


def load_expected_failures(path: Path) -> ExpectedFailures:
    """The file read by the shared user-YAML reader (bounded, every value with its place);
    ExpectedFailuresError naming the file and line:column of every problem."""
    try:
        document = load_user_yaml(path, "expected-failures file")
    except SpecFileError as error:
        raise ExpectedFailuresError(error.message) from None
    data = document.data
    if data is None:
        return ExpectedFailures(path, {}, {})
    if not isinstance(data, dict):
        raise ExpectedFailuresError(
            f"{document.place('')}: expected a mapping of case name or rule anchor "
            f"to reason, found {_type(data)}"
        )
    problems: list[str] = []
    entries: dict[str, ExpectedFailureEntry] = {}
    lines: dict[str, int] = {}
    for key, value in data.items():
        if not (_CASE_NAME.match(key) or is_anchor(key)):
            problems.append(
                f"{document.place('/' + escape(key))}: {key!r} is neither a case name "
                "(kebab-case) nor a rule anchor (like ctx.stub.range)"
            )
        entry = _entry(document, key, value, problems)
        if entry is not None:
            entries[key] = entry
            where = document.where.get("/" + escape(key))
            lines[key] = where.line if where is not None else 0
    if problems:
        count = "1 problem" if len(problems) == 1 else f"{len(problems)} problems"
        raise ExpectedFailuresError(
            f"{display(path)}: {count}:\n" + "\n".join(f"  {p}" for p in problems)
        )
    return ExpectedFailures(path, entries, lines)


def _why(case: CaseResult) -> str:
    """The verdict and the first line of what went wrong, as a reason to commit."""
    if case.verdict == "expected-failure" and case.expected_failure is not None:
        return case.expected_failure.reason  # the reason already written down stays
    first = case.message.strip().split("\n", 1)[0]
    if not first:
        failed = [s for s in case.steps if s.verdict in ("fail", "equivalent-diff")]
        # The implementation's own word for a step it could not do says most.
        said = next((s for s in failed if s.message.strip()), None)
        if said is not None:
            first = f"step {said.index} ({said.step.get('op')}): "
            first += said.message.strip().split("\n", 1)[0]
            if len(failed) > 1:
                first += f"; {len(failed) - 1} more failing step{'s' if len(failed) > 2 else ''}"
        elif failed:
            shown = ", ".join(f"{s.index} ({s.step.get('op')})" for s in failed[:3])
            first = f"step {shown} differs" if len(failed) == 1 else f"steps {shown} differ"
        else:
            first = "no output"
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
