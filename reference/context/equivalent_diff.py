"""Is a different diff the same change? The "equivalent-diff" verdict.

An edit, multiedit, write or apply_patch step answers with a unified diff. Diff algorithms break
ties differently, so an implementation may show the same change with other hunks than the
reference. Such an answer is an equivalent diff when:

- every bracket line is the expected one (the result's id, path and sha);
- its hunks apply to the file's `before`, each exactly where its header says, every context and
  removed line matching, and give the file's `after`;
- it has the expected amount of context: `context` lines (3) before and after each change, fewer
  only at either end of the file; no more than twice that between changes in one hunk, and more
  than twice that between hunks;
- it changes no more lines than the expected diff.

An apply_patch over several files is compared section by section, in the patch's order; a
section without a diff (created, deleted, unchanged) must equal the expected one exactly.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DIFF_OPS = frozenset({"edit", "multiedit", "write", "apply_patch"})
NO_NEWLINE = "\\ No newline at end of file"
DEFAULT_CONTEXT = 3

_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@$")


class DiffError(Exception):
    """A text that is not a well-formed diff, or a diff that does not apply."""


@dataclass(frozen=True)
class Hunk:
    old_start: int  # as written in the header
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[tuple[str, str], ...]  # (tag, line with its "\n" unless marked as the last)

    def old_lines(self) -> list[str]:
        return [line for tag, line in self.lines if tag != "+"]

    def new_lines(self) -> list[str]:
        return [line for tag, line in self.lines if tag != "-"]

    def changed(self) -> int:
        return sum(tag != " " for tag, _ in self.lines)


@dataclass(frozen=True)
class Verdict:
    equivalent: bool
    reason: str  # why not, or "" when equivalent


def lines_with_ends(text: str) -> list[str]:
    """The lines of `text`, each with its `\\n`; a last line without one stays without."""
    # Not str.splitlines: it also breaks at \r, U+2028 and others, and a line ends at \n only.
    parts = text.split("\n")
    last = parts.pop()
    return [part + "\n" for part in parts] + ([last] if last else [])


def parse_hunks(body: Sequence[str], no_newline: str = NO_NEWLINE) -> list[Hunk]:
    """The hunks of a diff given as its lines (without `\\n`); DiffError when malformed."""
    hunks: list[Hunk] = []
    index = 0
    while index < len(body):
        header = _HEADER.match(body[index])
        if header is None:
            raise DiffError(f"line {index + 1}: expected a hunk header, found {body[index]!r}")
        old_start, new_start = int(header.group(1)), int(header.group(3))
        old_count = 1 if header.group(2) is None else int(header.group(2))
        new_count = 1 if header.group(4) is None else int(header.group(4))
        index += 1
        lines: list[tuple[str, str]] = []
        old_seen = new_seen = 0
        while index < len(body) and (old_seen < old_count or new_seen < new_count):
            line = body[index]
            tag = line[:1]
            if tag not in (" ", "-", "+"):
                raise DiffError(f"line {index + 1}: expected a hunk line, found {line!r}")
            old_seen += tag != "+"
            new_seen += tag != "-"
            index += 1
            ends = True
            if index < len(body) and body[index] == no_newline:
                ends = False
                index += 1
            lines.append((tag, line[1:] + ("\n" if ends else "")))
        if (old_seen, new_seen) != (old_count, new_count):
            raise DiffError(f"hunk {header.group(0)!r} has {old_seen} old and {new_seen} new lines")
        if not any(tag != " " for tag, _ in lines):
            raise DiffError(f"hunk {header.group(0)!r} changes nothing")
        hunks.append(Hunk(old_start, old_count, new_start, new_count, tuple(lines)))
    if not hunks:
        raise DiffError("no hunk")
    return hunks


def _start_index(start: int, count: int) -> int:
    # An empty range names the line before it; a non-empty one its first line.
    return start if count == 0 else start - 1


def apply_hunks(before: str, hunks: Sequence[Hunk]) -> str:
    """`before` with `hunks` applied, each exactly where its header says; DiffError otherwise."""
    old = lines_with_ends(before)
    out: list[str] = []
    position = 0  # lines of `old` consumed
    for number, hunk in enumerate(hunks, start=1):
        at = _start_index(hunk.old_start, hunk.old_count)
        if at < position:
            raise DiffError(
                f"hunk {number} starts at old line {hunk.old_start}, inside an earlier one"
            )
        out.extend(old[position:at])
        new_at = _start_index(hunk.new_start, hunk.new_count)
        if new_at != len(out):
            raise DiffError(
                f"hunk {number} says new line {hunk.new_start}, but it falls at line {len(out) + 1}"
            )
        wanted = hunk.old_lines()
        found = old[at : at + len(wanted)]
        if found != wanted:
            for offset, (want, have) in enumerate(zip(wanted, found, strict=False)):
                if want != have:
                    line = at + offset + 1
                    raise DiffError(f"hunk {number}: old line {line} is {have!r}, not {want!r}")
            raise DiffError(f"hunk {number} runs past the end of the file")
        out.extend(hunk.new_lines())
        position = at + len(wanted)
    out.extend(old[position:])
    return "".join(out)


def check_context(hunks: Sequence[Hunk], old_total: int, context: int = DEFAULT_CONTEXT) -> None:
    """DiffError unless the hunks carry the context a `-U context` diff carries."""
    previous_change_end: int | None = None  # old-file index just past the last change so far
    for number, hunk in enumerate(hunks, start=1):
        tags = [tag for tag, _ in hunk.lines]
        first = next(i for i, tag in enumerate(tags) if tag != " ")
        last = max(i for i, tag in enumerate(tags) if tag != " ")
        lead, trail = first, len(tags) - 1 - last
        at = _start_index(hunk.old_start, hunk.old_count)
        change_start = at + lead  # old-file index of the first change
        change_end = at + sum(tag != "+" for tag in tags[: last + 1])
        if lead != min(context, change_start):
            raise DiffError(f"hunk {number} has {lead} lines of context before its first change")
        if trail != min(context, old_total - change_end):
            raise DiffError(f"hunk {number} has {trail} lines of context after its last change")
        run = 0
        for tag in tags[first : last + 1]:
            run = run + 1 if tag == " " else 0
            if run > 2 * context:
                raise DiffError(f"hunk {number} holds {run} unchanged lines between two changes")
        if previous_change_end is not None and change_start - previous_change_end <= 2 * context:
            raise DiffError(
                f"hunks {number - 1} and {number} are {change_start - previous_change_end} "
                "lines apart: they make one hunk"
            )
        previous_change_end = change_end


def _check_one_diff(
    before: str,
    after: str,
    expected_body: Sequence[str],
    actual_body: Sequence[str],
    context: int,
    no_newline: str,
) -> None:
    try:
        expected = parse_hunks(expected_body, no_newline)
    except DiffError as error:
        raise DiffError(f"the expected text is not a plain diff ({error})") from None
    actual = parse_hunks(actual_body, no_newline)
    if apply_hunks(before, actual) != after:
        raise DiffError("the diff applies, but does not give the file's content after the change")
    check_context(actual, len(lines_with_ends(before)), context)
    expected_changed = sum(h.changed() for h in expected)
    actual_changed = sum(h.changed() for h in actual)
    if actual_changed > expected_changed:
        raise DiffError(f"it changes {actual_changed} lines where {expected_changed} do")


def _strip_note(text: str, note: object, which: str) -> str:
    if not note:
        return text
    suffix = f"\n\n{note}"
    if not text.endswith(suffix):
        raise DiffError(f"the {which} text does not end with the tool's note")
    return text.removesuffix(suffix)


def _sections(lines: Sequence[str]) -> list[list[str]]:
    # A diff line starts with " ", "-", "+", "@" or "\"; a file's section starts with its bracket.
    sections: list[list[str]] = []
    for line in lines:
        if line.startswith("[") or not sections:
            sections.append([line])
        else:
            sections[-1].append(line)
    return sections


def _check(
    step: Mapping[str, Any], expected: str, actual: str, context: int, no_newline: str
) -> None:
    note = step.get("note")
    expected_lines = _strip_note(expected, note, "expected").split("\n")
    actual_lines = _strip_note(actual, note, "actual").split("\n")
    if expected_lines[0] != actual_lines[0]:
        raise DiffError(f"the bracket differs: {actual_lines[0]!r}")
    files = step.get("files")
    if step["op"] != "apply_patch" or (isinstance(files, list) and len(files) == 1):
        file = files[0] if step["op"] == "apply_patch" and isinstance(files, list) else step
        _check_one_diff(
            file.get("before") or "",
            file.get("after") or "",
            expected_lines[1:],
            actual_lines[1:],
            context,
            no_newline,
        )
        return
    assert isinstance(files, list)
    expected_sections = _sections(expected_lines[1:])
    actual_sections = _sections(actual_lines[1:])
    if len(actual_sections) != len(files) or len(expected_sections) != len(files):
        raise DiffError(f"{len(actual_sections)} file sections for a patch of {len(files)} files")
    for number, (file, want, have) in enumerate(
        zip(files, expected_sections, actual_sections, strict=True), start=1
    ):
        if want[0] != have[0]:
            raise DiffError(
                f"file {number} ({file.get('path')}): the first line differs: {have[0]!r}"
            )
        if len(want) > 1 and want[1].startswith("@@ "):
            try:
                _check_one_diff(
                    file.get("before") or "",
                    file.get("after") or "",
                    want[1:],
                    have[1:],
                    context,
                    no_newline,
                )
            except DiffError as error:
                raise DiffError(f"file {number} ({file.get('path')}): {error}") from None
        elif want != have:
            raise DiffError(f"file {number} ({file.get('path')}) differs and is not a diff")


def applies(step: Mapping[str, Any], expected: str) -> bool:
    """Whether the check is defined for this step: a diff op whose expected text has a hunk."""
    return step.get("op") in DIFF_OPS and "\n@@ " in expected


def check(
    step: Mapping[str, Any],
    expected: str,
    actual: str,
    *,
    context: int = DEFAULT_CONTEXT,
    no_newline: str = NO_NEWLINE,
) -> Verdict:
    """Whether `actual`, which differs from `expected`, shows the same change as it."""
    if not applies(step, expected):
        return Verdict(False, "the step's expected text is not a diff")
    if actual == expected:
        return Verdict(False, "the texts are equal")
    try:
        _check(step, expected, actual, context, no_newline)
    except DiffError as error:
        return Verdict(False, str(error))
    except (KeyError, TypeError, AttributeError) as error:  # a step without the fields of its op
        return Verdict(False, f"the step cannot be checked: {error}")
    return Verdict(True, "")
