"""From a fuzz finding to a case file: its rules guessed, its name, its text, what is printed."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxconf.fuzzing.model import DEFAULT_REPORTS, Case, Finding
from ctxconf.fuzzing.strategies import area_fuzz
from ctxconf.reference import AREAS
from ctxconf.specdata.schemas import CASES, spec_validator
from ctxconf.terminal.textdiff import visible, visible_diff
from ctxconf.userfiles import limits
from ctxconf.userfiles.atomic import write_text_atomic


def _rules_guessed() -> frozenset[str]:
    guessed: frozenset[str] = frozenset()
    for area in AREAS:
        guessed |= area_fuzz(area).RULES_GUESSED
    return guessed


RULES_GUESSED = _rules_guessed()  # every rule a finding of any area may be given


def guess_rules(finding: Finding, config: Any) -> list[str]:
    """Rules the differing step probably exercises (its area's guess, from its texts and its
    op; `config` is the area's): to be reviewed."""
    step = finding.case["steps"][finding.step]
    actual = None if finding.actual is None else finding.actual[finding.step]
    expected = finding.expected[finding.step]
    return list(area_fuzz(finding.area).guess_rules(step, expected, actual, config))


def case_name(seed: int, case: Case) -> str:
    """`fuzz-SEED-HASH`: the hash of the session, so two findings never share a name."""
    canonical = limits.dumps(case, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return f"fuzz-{seed}-{hashlib.sha256(canonical.encode('utf-8')).hexdigest()[:8]}"


def finding_document(finding: Finding, seed: int, impl: str, config: Any) -> dict[str, Any]:
    """The finding as a case file of one case, valid against `cases.schema.json`."""
    step = finding.step
    op = finding.case["steps"][step]["op"]
    if finding.actual is None:
        what = f"fails the session. The rules are guessed from its last step ({op})"
    else:
        what = f"differs from the reference at step {step} ({op}). The rules are guessed from it"
    case: dict[str, Any] = {
        "name": case_name(seed, finding.case),
        "description": f"Found by ctxconf fuzz --seed {seed}: the implementation {what}: "
        "review them.",
        "rules": guess_rules(finding, config),
    }
    if "limits" in finding.case:
        case["limits"] = finding.case["limits"]
    case["steps"] = finding.case["steps"]
    case["expect"] = list(finding.expected)
    document = {
        "area": finding.area,
        "version": config.version,
        "description": f"A session found by `ctxconf fuzz --seed {seed}` on which {impl} departs "
        "from the reference; the expected texts are the reference's.",
        "cases": [case],
    }
    # A failure here is a bug in ctxconf.
    spec_validator(CASES).validate(document)
    return document


# Characters a JSON file may hold raw but that YAML (add-case reads the file as YAML), editors
# or terminals take for line breaks or hide: written as \u escapes.
_ESCAPED = re.compile(
    "[^\t\n\r\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)


def document_text(document: Mapping[str, Any]) -> str:
    text = limits.dumps(document, indent=2, ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n"


def write_document(document: Mapping[str, Any], out: Path | None) -> Path:
    """Write the case file to `out` (a file, or a folder to put it in) or under ./reports/."""
    name = f"{document['cases'][0]['name']}.json"
    if out is None:
        path = DEFAULT_REPORTS / name  # the folder is made as the file is written
    else:
        path = out / name if out.is_dir() else out
    write_text_atomic(path, document_text(document))
    return path


# -- what the command prints -------------------------------------------------------------------

_SHOWN_CHARS = 400
_SHOWN_LINES = 80


def _shorten(text: str, limit: int = _SHOWN_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def _clip(lines: list[str], limit: int = _SHOWN_LINES) -> list[str]:
    if len(lines) <= limit:
        return lines
    return [*lines[:limit], f"… ({len(lines) - limit} more lines)"]


def describe_finding(finding: Finding) -> list[str]:
    """The session, then each differing step as a diff of expected and actual, whitespace shown."""
    steps = finding.case["steps"]
    out = [f"the session ({len(steps)} step{'' if len(steps) == 1 else 's'}):"]
    if "limits" in finding.case:
        out.append(f"  limits {limits.dumps(finding.case['limits'])}")
    for index, step in enumerate(steps):
        out.append(f"  {index:>3}  {_shorten(limits.dumps(step))}")
    if finding.actual is None:
        out.append(f"the implementation failed the session: {finding.failure}")
        if finding.stderr.strip():
            out.append("its stderr:")
            out.extend("  " + line for line in _clip(finding.stderr.rstrip().split("\n"), 20))
        out.append("the reference's texts:")
        for index, text in enumerate(finding.expected):
            out.append(f"  step {index} ({steps[index]['op']}):")
            out.extend("    " + visible(line) for line in _clip(text.split("\n")))
        return out
    for index in finding.differing:
        out.append(f"step {index} ({steps[index]['op']}) differs:")
        diff = visible_diff(finding.expected[index], finding.actual[index])
        out.extend("  " + line for line in _clip(diff))
    return out
