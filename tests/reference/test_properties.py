"""Properties of the reference over generated sessions (`ctxconf.fuzzing.strategies`).

Each property keeps its own account of the session, from the step data alone (which file a
path names, each content's hash, which results the request carries), and checks the texts the
reference inserts against it.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

from ctxconf.fuzzing.strategies import edit_pairs, prefix_sessions, sessions
from ctxconf.reference import ContextConfig, PatchFile, Session, run_area_case, run_case
from ctxconf.reference.context.equivalent_diff import apply_hunks, check_context, parse_hunks
from ctxconf.reference.texts import read_loop
from ctxconf.spectools.validate import validate_files

# Sessions with outputs near the 40000-character cap make reprs Hypothesis warns about when it
# reports an example; the warning would hide the assertion that failed.
pytestmark = [
    pytest.mark.filterwarnings(
        "ignore:Generating overly large repr:hypothesis.errors.HypothesisWarning"
    ),
    pytest.mark.slow,  # property tests over generated sessions
]

CONFIG = ContextConfig.load()
TEXTS = CONFIG.texts
CI = settings(
    max_examples=200,
    deadline=None,
    database=None,
    derandomize=True,  # the same examples on every run: a CI failure is reproduced locally
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

Step = Mapping[str, Any]
Case = dict[str, Any]
CHANGES = ("edit", "multiedit", "write", "delete", "apply_patch")
NO_RESULT = ("compact", "reply")

_BRACKET_ID = re.compile(r"^\[(#[0-9a-f]{4,})[ \]]")
_READ_STUB = re.compile(
    r"^\[[^\n]*\] Unchanged since (#[0-9a-f]+), which already shows lines (\d+)-(\d+)\.$"
)
_SAME = re.compile(r"^\[(#[0-9a-f]+)\] Same result as (#[0-9a-f]+)\.$")
_ELIDED = re.compile(r"^\[(\d+) lines elided, full output (#[0-9a-f]+)\]$")
_CUT = " […cut]"


# -- an account of the session kept by the test ----------------------------------------------


def identity(path: str) -> str:
    return posixpath.normpath(posixpath.join("/project", path))


def line_list(text: str) -> list[str]:
    """Lines end at `\\n` only; a final `\\n` ends the last line."""
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def result_ids(steps: list[dict[str, Any]]) -> list[str | None]:
    """The id each step's result gets (None for compact and reply), from the steps alone."""
    ids: list[str | None] = []
    number = 0
    for step in steps:
        if step["op"] in NO_RESULT:
            ids.append(None)
            continue
        number += 1
        ids.append(step.get("id", "#" + format(number, f"0{CONFIG.id_digits}x")))
    return ids


def changed_paths(step: Step) -> list[str]:
    if step["op"] == "apply_patch":
        return [f["path"] for f in step["files"]]
    return [step["path"]] if step["op"] in CHANGES else []


def cap_for(case: Case) -> dict[str, int]:
    cap = CONFIG.cap
    base = {name: getattr(cap, name) for name in
            ("max_lines", "max_chars", "head_lines", "head_chars", "tail_lines", "tail_chars")}
    return {**base, **case.get("limits", {})}


def read_range(step: Step) -> tuple[int, int, int] | None:
    """(first, last, total) of a read that shows lines; None for an empty file or past the end."""
    total = len(line_list(step["content"]))
    first = step.get("offset", 1)
    if total == 0 or first > total:
        return None
    window = min(step.get("limit", CONFIG.read_window), CONFIG.read_window)
    return first, min(total, first + window - 1), total


def apply(session: Session, step: Step) -> str:
    """One step on a session, through its public methods."""
    op = step["op"]
    rid = step.get("id")
    if op == "read":
        return session.read(step["path"], step["content"], offset=step.get("offset"),
                            limit=step.get("limit"), id=rid)
    if op in ("edit", "multiedit"):
        method = session.edit if op == "edit" else session.multiedit
        return method(step["path"], step["before"], step["after"], note=step.get("note"), id=rid)
    if op == "write":
        return session.write(step["path"], step["after"], before=step.get("before"),
                             note=step.get("note"), id=rid)
    if op == "delete":
        return session.delete(step["path"], note=step.get("note"), id=rid)
    if op == "apply_patch":
        files = [PatchFile(f["path"], f.get("before"), f.get("after")) for f in step["files"]]
        return session.apply_patch(files, note=step.get("note"), id=rid)
    if op == "output":
        return session.output(step["tool"], step["args"], step["text"], id=rid)
    if op == "recall":
        return session.recall(step["target"], offset=step.get("offset"), limit=step.get("limit"),
                              id=rid)
    return session.compact() if op == "compact" else session.reply()


# -- ids -----------------------------------------------------------------------------------------


@CI
@given(sessions())
def test_ids_are_the_given_or_the_next_number_and_never_reused(case: Case) -> None:
    outputs = run_case(case, CONFIG)
    expected_ids = result_ids(case["steps"])
    shown: list[str] = []
    for index, (text, expected_id) in enumerate(zip(outputs, expected_ids, strict=True)):
        match = _BRACKET_ID.match(text)
        if expected_id is None:
            assert match is None, f"step {index} is no result but shows an id: {text!r}"
            continue
        assert match is not None, f"step {index} does not begin with its id: {text!r}"
        assert match.group(1) == expected_id, f"step {index}"
        shown.append(match.group(1))
    assert len(shown) == len(set(shown)), shown


# -- stubs -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FullRead:
    id: str
    first: int
    last: int
    sha: str


@CI
@given(sessions())
def test_a_read_stub_names_the_newest_carried_full_read_that_holds_its_lines(case: Case) -> None:
    steps = case["steps"]
    outputs = run_case(case, CONFIG)
    carried: dict[str, list[FullRead]] = {}  # identity -> full reads the request carries
    for index, (step, text, rid) in enumerate(zip(steps, outputs, result_ids(steps), strict=True)):
        if step["op"] in NO_RESULT:
            carried.clear()
            continue
        for path in changed_paths(step):
            carried.pop(identity(path), None)
        if step["op"] != "read":
            assert _READ_STUB.match(text) is None, f"step {index}: a stub for a {step['op']}"
            continue
        key, digest = identity(step["path"]), sha(step["content"])
        if carried.get(key) and carried[key][-1].sha != digest:
            del carried[key]  # another content ends the standing of every earlier read
        shown = read_range(step)
        stub = _READ_STUB.match(text)
        if shown is None:
            assert stub is None, f"step {index}: an empty or past-the-end read is never a stub"
            continue
        first, last, _ = shown
        holding = [r for r in carried.get(key, []) if r.first <= first and last <= r.last]
        if not holding:
            assert stub is None, f"step {index}: a stub though no carried read holds {first}-{last}"
            carried.setdefault(key, []).append(FullRead(str(rid), first, last, digest))
            continue
        assert stub is not None, f"step {index}: full though {holding[-1]} holds {first}-{last}"
        named = holding[-1]
        assert named.sha == digest
        assert stub.groups() == (named.id, str(named.first), str(named.last)), f"step {index}"


@CI
@given(sessions())
def test_a_same_result_stub_names_the_latest_full_result_of_the_same_call(case: Case) -> None:
    steps = case["steps"]
    outputs = run_case(case, CONFIG)
    latest: dict[str, tuple[str, str]] = {}  # call -> (text, id of the full result)
    for index, (step, text, rid) in enumerate(zip(steps, outputs, result_ids(steps), strict=True)):
        if step["op"] in NO_RESULT:
            latest.clear()
            continue
        same = _SAME.match(text)
        if step["op"] != "output" or step["tool"] not in CONFIG.dedupe_by_result:
            assert same is None, f"step {index}: a same-result stub for {step['op']}"
            continue
        call = json.dumps([step["tool"], step["args"]], sort_keys=True, ensure_ascii=False)
        earlier = latest.get(call)
        if earlier is not None and earlier[0] == step["text"]:
            assert same is not None, f"step {index}: a repeat of {earlier[1]} shown in full"
            assert same.groups() == (rid, earlier[1])
        else:
            assert same is None, f"step {index}: a stub though the call is new or changed"
            latest[call] = (step["text"], str(rid))


# -- the cap ---------------------------------------------------------------------------------------


def check_capped(text: str, shown: str, cap: Mapping[str, int], rid: str) -> None:
    lines = line_list(text)
    over = len(lines) > cap["max_lines"] or len(text) > cap["max_chars"]
    if not over:
        assert shown == text, "within the cap, an output is inserted verbatim"
        return
    parts = shown.split("\n")
    markers = [i for i, line in enumerate(parts) if _ELIDED.match(line)]
    assert markers, f"over the cap but no elided line: {shown!r}"
    at = markers[0]
    head, tail = parts[:at], parts[at + 1 :]
    elided = _ELIDED.match(parts[at])
    assert elided is not None and elided.group(2) == rid
    if len(lines[0]) > cap["head_chars"]:
        assert head == [lines[0][: cap["head_chars"]] + _CUT], "a long first line is cut"
    else:
        assert 1 <= len(head) <= cap["head_lines"]
        assert head == lines[: len(head)]
        assert len("\n".join(head)) <= cap["head_chars"]
        more = lines[: len(head) + 1]
        assert (len(head) == cap["head_lines"] or len("\n".join(more)) > cap["head_chars"]), (
            "the head is the most whole lines that fit")
    assert len(tail) <= cap["tail_lines"]
    assert len(head) + len(tail) <= len(lines), "the tail never overlaps the head"
    if tail:
        assert tail == lines[len(lines) - len(tail) :]
        assert len("\n".join(tail)) <= cap["tail_chars"]
    if len(head) + len(tail) < len(lines) and len(tail) < cap["tail_lines"]:
        more = lines[len(lines) - len(tail) - 1 :]
        assert len("\n".join(more)) > cap["tail_chars"], "the tail is the most whole lines that fit"
    assert int(elided.group(1)) == len(lines) - len(head) - len(tail), "the elided count is exact"


@CI
@given(sessions())
def test_an_output_over_the_cap_keeps_its_head_and_tail_and_counts_the_rest(case: Case) -> None:
    steps = case["steps"]
    cap = cap_for(case)
    for step, text, rid in zip(steps, run_case(case, CONFIG), result_ids(steps), strict=True):
        if step["op"] != "output" or not step["text"] or _SAME.match(text):
            continue
        bracket, shown = text.split("\n", 1)
        assert bracket == f"[{rid}]"
        check_capped(step["text"], shown, cap, str(rid))


# -- store and recall --------------------------------------------------------------------------


@CI
@given(sessions())
def test_a_recall_shows_exactly_the_stored_lines(case: Case) -> None:
    steps = case["steps"]
    session = Session(CONFIG, limits=case.get("limits"))
    outputs = []
    for step, rid in zip(steps, result_ids(steps), strict=True):
        stored = None
        target = ""
        if step["op"] == "recall":
            bare = step["target"].lower().removeprefix("#")
            target = "#" + bare
            stored = session.stored(target)
        text = apply(session, step)
        outputs.append(text)
        if step["op"] == "output" and not _SAME.match(text):
            assert session.stored(str(rid)) == step["text"], "an output is stored in full"
        if step["op"] != "recall":
            continue
        if stored is None:
            unknown = TEXTS.render("recall_unknown", target=target)
            assert text == f"{TEXTS.render('bracket', id=rid)} {unknown}"
            continue
        lines = line_list(stored)
        first = step.get("offset", 1)
        if first > len(lines):
            assert text.endswith(TEXTS.render("recall_past_end", offset=first, total=len(lines)))
            continue
        last = min(len(lines), first + min(step.get("limit", CONFIG.recall_window),
                                           CONFIG.recall_window) - 1)
        bracket = TEXTS.render("recall_bracket", id=rid, target=target, first=first, last=last,
                               total=len(lines))
        shown = "\n".join(lines[first - 1 : last])
        assert text == f"{bracket}\n{shown}"
        assert session.stored(str(rid)) == shown, "a recall stores the lines it shows"
    assert outputs == run_case(case, CONFIG)


# -- the one rule --------------------------------------------------------------------------------


@CI
@given(sessions())
def test_an_output_depends_only_on_the_steps_before_it(case: Case) -> None:
    outputs = run_case(case, CONFIG)
    for count in range(1, len(case["steps"])):
        prefix = {**case, "steps": case["steps"][:count]}
        assert run_case(prefix, CONFIG) == outputs[:count], f"the first {count} steps alone"


# -- diffs ---------------------------------------------------------------------------------------


def check_diff(before: str, after: str, diff: str) -> None:
    body = diff.split("\n")
    hunks = parse_hunks(body, TEXTS.render("no_newline"))
    assert apply_hunks(before, hunks) == after
    check_context(hunks, len(line_list(before)), CONFIG.diff_context)


@CI
@given(edit_pairs())
def test_a_diff_applied_to_before_gives_after(pair: tuple[str, str]) -> None:
    before, after = pair
    session = Session(CONFIG)
    text = session.edit("a.md", before, after)
    if before == after:
        assert text.endswith(TEXTS.render("no_change"))
        return
    stored = session.stored("#0001")
    assert stored is not None
    check_diff(before, after, stored)


@CI
@given(sessions())
def test_every_stored_diff_of_a_session_applies(case: Case) -> None:
    session = Session(CONFIG, limits=case.get("limits"))
    for step, rid in zip(case["steps"], result_ids(case["steps"]), strict=True):
        apply(session, step)
        files = step["files"] if step["op"] == "apply_patch" else [step]
        if step["op"] not in CHANGES or step["op"] == "delete" or len(files) != 1:
            continue
        file = files[0]
        before, after = file.get("before"), file.get("after")
        if before is None or after is None or before == after:
            continue
        stored = session.stored(str(rid))
        assert stored is not None
        if step.get("note"):
            stored = stored.removesuffix("\n\n" + step["note"])
        check_diff(file["before"], file["after"], stored)


# -- what the strategies reach -------------------------------------------------------------------


def _has(op: str) -> Any:
    return lambda case, outputs: any(step["op"] == op for step in case["steps"])


def _shows(pattern: str) -> Any:
    found = re.compile(pattern, re.MULTILINE)
    return lambda case, outputs: any(found.search(text) for text in outputs)


def _steps(test: Any) -> Any:
    return lambda case, outputs: any(test(step) for step in case["steps"])


REACHED = {
    **{f"op-{op}": _has(op) for op in
       ("read", "edit", "multiedit", "write", "delete", "apply_patch", "output", "recall",
        "compact", "reply")},
    "read-stub": _shows(r"\] Unchanged since #"),
    "same-result": _shows(r"\] Same result as #"),
    "elided": _shows(r"^\[\d+ lines elided"),
    "cut": _shows(r"\[…cut\]$"),
    "several-hunks": lambda case, outputs: any(
        sum(line.startswith("@@ ") for line in text.split("\n")) > 1 for text in outputs),
    "compaction-table": _shows(r"^\| .* \| #[0-9a-f]+ \|$"),
    "recall-known": _shows(r"^\[#[0-9a-f]+ recall #"),
    "recall-unknown": _shows(r"\] No stored result #"),
    "recall-upper-case": _steps(
        lambda s: s["op"] == "recall" and any(map(str.isupper, s["target"]))),
    "recall-without-hash": _steps(lambda s: s["op"] == "recall" and s["target"][0] != "#"),
    "given-id": _steps(lambda s: "id" in s),
    "no-final-newline": _steps(lambda s: s["op"] == "read" and s["content"][-1:] not in ("", "\n")),
    "crlf": _steps(lambda s: s["op"] == "read" and "\r\n" in s["content"]),
    "u2028": _steps(lambda s: s["op"] == "read" and "\u2028" in s["content"]),
    "astral": _steps(lambda s: s["op"] == "read" and any(ord(c) > 0xFFFF for c in s["content"])),
    "same-file-other-spelling": lambda case, outputs: any(
        identity(a["path"]) == identity(b["path"]) and a["path"] != b["path"]
        for a in case["steps"] for b in case["steps"] if "path" in a and "path" in b),
    "listing-keys-reordered": lambda case, outputs: any(
        a["op"] == b["op"] == "output" and a["args"] == b["args"]
        and json.dumps(a["args"]) != json.dumps(b["args"])
        for a in case["steps"] for b in case["steps"]),
    "limits": lambda case, outputs: "limits" in case,
}


@pytest.mark.parametrize("name", sorted(REACHED))
def test_the_strategies_reach(name: str) -> None:
    test = REACHED[name]
    found = find(
        sessions(),
        lambda case: bool(test(case, run_case(case, CONFIG))),
        settings=settings(max_examples=2000, database=None, derandomize=True, deadline=None,
                          phases=[Phase.generate], suppress_health_check=list(HealthCheck)),
    )
    assert test(found, run_case(found, CONFIG))


# -- the prefix area ----------------------------------------------------------------------------

LOOP = read_loop()


@CI
@given(prefix_sessions())
def test_a_prefix_session_is_a_valid_case_and_runs_on_the_reference(case: Case) -> None:
    expect = run_area_case("prefix", case, LOOP)
    assert len(expect) == len(case["steps"]) and expect[0] == ""
    document = {"area": "prefix", "version": LOOP["version"], "description": "generated",
                "cases": [{"name": "generated", "description": "generated",
                           "rules": ["pfx.note.form"], "steps": case["steps"], "expect": expect}]}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "prefix.json"
        path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
        assert validate_files([path]) == []


def _prefix_reaches(predicate: Any) -> None:
    find(prefix_sessions(), predicate,
         settings=settings(max_examples=3000, database=None, phases=[Phase.generate]))


PREFIX_REACHED: dict[str, Any] = {
    "late-mcp-server": lambda c: any(s["ready_ms"] > 3000 for s in c["steps"][0].get("mcp", [])),
    "mcp-at-the-wait": lambda c: any(s["ready_ms"] == 3000 for s in c["steps"][0].get("mcp", [])),
    "withdrawn-call": lambda c: any(
        s["op"] == "call" and any(w["op"] == "withdraw" and s["tool"] in w["tools"]
                                  for w in c["steps"][:i])
        for i, s in enumerate(c["steps"])),
    "plan-submit-call": lambda c: any(s["op"] == "call" and s["tool"] == "plan_submit"
                                      for s in c["steps"]),
    "stream-response": lambda c: any(s["op"] == "response" and s["stream"] for s in c["steps"]),
    "response-count-removed": lambda c: any(
        s["op"] == "response" and "null" in run_area_case("prefix", {"steps": c["steps"][:i + 1]},
                                                          LOOP)[-1]
        for i, s in enumerate(c["steps"])),
    "side-request": lambda c: any(s["op"] == "request_body" and "aside" in s
                                  for s in c["steps"]),
    "params-then-body": lambda c: any(
        s["op"] == "params" and any(b["op"] == "request_body" for b in c["steps"][i:])
        for i, s in enumerate(c["steps"])),
    "change-undone": lambda c: any(
        a["op"] == "mode" and b["op"] == "mode" and c["steps"][0]["mode"] == b["mode"]
        and not any(s["op"] == "user" for s in c["steps"][:i])
        for i, (a, b) in enumerate(zip(c["steps"], c["steps"][1:], strict=False))),
}


@pytest.mark.parametrize("name", sorted(PREFIX_REACHED))
def test_the_prefix_strategies_reach(name: str) -> None:
    _prefix_reaches(PREFIX_REACHED[name])
