"""The history area's reference as a harness embeds it: turns written at their boundaries, crashes
and torn writes, the tree (branch, fork, rewind), the ladder; and its case checks, as a user
meets them through `ctxconf validate`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from ctxconf.reference.history import (
    Call,
    Compaction,
    Digest,
    HistoryConfig,
    HistorySession,
    HistoryStepError,
    Result,
    Trim,
    User,
    run_history_case,
)
from ctxconf.reference.history.checks import step_problems
from ctxconf.reference.history.steps import StepFailed
from ctxconf.specdata.paths import bundled_spec_dir
from tests.cli import ctxconf

SPEC = bundled_spec_dir()
LOOP: dict[str, Any] = json.loads((SPEC / "loop.json").read_text(encoding="utf-8"))
CONFIG = HistoryConfig.from_loop(LOOP)
T = CONFIG.texts


def session(window: int = 400, vision: bool = True) -> HistorySession:
    return HistorySession(CONFIG, window=window, vision=vision)


def turn(s: HistorySession, n: int, text: str = "", **result: Any) -> None:
    """A turn: the person's message u{n}; with `result`, a call c{n} and its result r{n}; the
    model's answer b{n}."""
    s.user(f"u{n}", text or f"Message {n}.", result.pop("images", ()))
    if result:
        tool = result.pop("tool", "run")
        args = result.pop("args", {"n": n})
        s.assistant(f"a{n}", calls=[Call(f"c{n}", tool, args)])
        s.result(f"r{n}", f"c{n}", result.pop("out"), result.pop("result_images", ()), **result)
    s.assistant(f"b{n}", f"Answer {n}.")
    s.end_turn()


def ids(s: HistorySession) -> list[str]:
    return [entry.id for entry in s.state.conversation.path()]


def cold(s: HistorySession) -> HistorySession:
    """A second session reading `s`'s transcript, as after a restart."""
    other = session(s.window, s.vision)
    other.store.records = list(s.store.records)
    other.reload()
    return other


def test_a_session_takes_the_config_it_is_given() -> None:
    loop = json.loads(json.dumps(LOOP))
    loop["history"]["texts"]["user_header"] = "=== person {id} ==="
    s = HistorySession(HistoryConfig.from_loop(loop), window=400, vision=False)
    s.user("u1", "Hi.")
    assert s.request().startswith("=== person u1 ===\nHi.")


def test_a_session_without_a_config_reads_the_bundled_one() -> None:
    s = HistorySession(window=400, vision=False)
    assert s.config.main == CONFIG.main and s.config.ladder == CONFIG.ladder


# --- persistence -----------------------------------------------------------------------------


def test_a_crash_mid_pair_reloads_to_the_boundary() -> None:
    s = session()
    turn(s, 1)
    s.user("u2", "Run the tests.")
    s.assistant("a2", calls=[Call("c2", "run", {"cmd": "pytest"})])
    s.crash()
    loaded = s.reload()
    assert loaded == T.render("reloaded", entries=2, conversation="main", tip="b1")
    # Nothing of the open turn survives, and no result is made up for its call.
    assert ids(s) == ["u1", "b1"]
    assert not any(isinstance(e, Result) for e in s.state.conversation.entries.values())
    assert s.retry() == T.render("retry_sent", id="u2")
    resent = s.state.conversation.entries["u2"]
    assert isinstance(resent, User) and resent.text == "Run the tests."
    assert ids(s) == ["u1", "b1", "u2"]


def test_a_retry_after_the_turn_ended_has_nothing_to_send() -> None:
    s = session()
    turn(s, 1)
    s.crash()
    s.reload()
    assert s.retry() == T.render("retry_nothing")


def test_nothing_of_an_open_turn_is_written_before_its_end() -> None:
    s = session()
    s.user("u1", "Hello.")
    s.assistant("a1", "Hi.")
    assert [json.loads(r)["type"] for r in s.store.records] == ["pending"]
    s.end_turn()
    kinds = [json.loads(r)["type"] for r in s.store.records]
    assert kinds == ["pending", "entry", "entry", "cleared"]


def test_a_torn_record_is_dropped_and_the_next_write_is_a_record_of_its_own() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    s.branch("b1")
    s.crash(torn=True)
    assert not s.store.records[-1].endswith("\n")
    loaded = s.reload()
    assert loaded.splitlines()[1] == T.render("torn_dropped")
    assert s.state.conversation.tip == "b2"  # the branch's tip record was the torn one
    s.checkpoint("cp1")
    assert all(record.endswith("\n") for record in s.store.records)
    assert [json.loads(record)["type"] for record in s.store.records[-2:]] == ["cleared", "label"]
    assert cold(s).state.conversation.labels == {"cp1": "b2"}


def test_a_torn_clearing_record_still_ends_its_turn() -> None:
    s = session()
    turn(s, 1)
    s.crash(torn=True)
    s.reload()
    assert s.state.pending is None
    assert s.retry() == T.render("retry_nothing")


def test_a_torn_crash_needs_a_write_since_the_reload() -> None:
    s = session()
    turn(s, 1)
    s.crash()
    s.reload()
    with pytest.raises(HistoryStepError) as error:
        s.crash(torn=True)
    assert error.value.code == "hist-torn-nothing"


def test_a_damaged_record_refuses_the_whole_reload() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    s.damage("u2")
    assert s.reload() == T.render("reload_damaged", last_good="b1")
    assert s.request() == T.render("not_loaded")
    assert s.retry() == T.render("retry_not_loaded")
    assert len(s.store.records) == 8  # nothing dropped


def test_only_reload_follows_a_crash() -> None:
    s = session()
    turn(s, 1)
    s.crash()
    with pytest.raises(HistoryStepError) as error:
        s.request()
    assert error.value.code == "hist-after-crash"


def test_a_reloaded_session_holds_what_the_live_one_held() -> None:
    s = session()
    turn(s, 1, out="ok\n" * 60, uneventful=True)
    s.checkpoint("cp1")
    turn(s, 2, images=["a.png", "b.png"])
    s.fork("f1")
    turn(s, 3)
    s.compact("s1", "So far.")
    s.switch("main")
    other = cold(s)
    for name, conversation in s.state.conversations.items():
        again = other.state.conversations[name]
        assert again.entries == conversation.entries
        assert (again.tip, again.labels, again.forked_from) == (
            conversation.tip,
            conversation.labels,
            conversation.forked_from,
        )
    assert other.request() == s.request()
    assert other.tree() == s.tree()
    assert other.transcript() == s.transcript()


# --- the turn --------------------------------------------------------------------------------


def test_a_turn_cannot_end_with_an_open_call() -> None:
    s = session()
    s.user("u1", "Go.")
    s.assistant("a1", calls=[Call("c1", "run", {}), Call("c2", "run", {})])
    s.result("r1", "c1", "done")
    with pytest.raises(HistoryStepError) as error:
        s.end_turn()
    assert error.value.code == "hist-open-call"


def test_ids_are_given_once_per_session() -> None:
    s = session()
    turn(s, 1)
    with pytest.raises(HistoryStepError) as error:
        s.user("b1", "Again.")
    assert error.value.code == "hist-id-reused"


def test_a_result_answers_an_open_call_only() -> None:
    s = session()
    s.user("u1", "Go.")
    s.assistant("a1", calls=[Call("c1", "run", {})])
    with pytest.raises(HistoryStepError) as error:
        s.result("r1", "c9", "done")
    assert error.value.code == "hist-unknown-call"


def test_the_request_shows_calls_with_canonical_arguments() -> None:
    s = session()
    s.user("u1", "Go.")
    s.assistant("a1", calls=[Call("c1", "edit", {"b": [1, {"y": 2, "x": "é"}], "a": True})])
    call_line = s.request().splitlines()[-1]
    assert call_line == T.render(
        "call", call="c1", tool="edit", args='{"a":true,"b":[1,{"x":"é","y":2}]}'
    )


# --- the tree --------------------------------------------------------------------------------


def test_a_branch_writes_only_a_tip_record() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    before = list(s.store.records)
    entries = dict(s.state.conversation.entries)
    assert s.branch("b1") == ""
    assert s.store.records[: len(before)] == before
    assert [json.loads(r)["type"] for r in s.store.records[len(before) :]] == ["tip"]
    assert s.state.conversation.entries == entries
    assert cold(s).state.conversation.tip == "b1"


def test_branching_back_gives_the_same_request() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    request = s.request()
    s.branch("b1")
    turn(s, 3)
    s.branch("b2")
    assert s.request() == request


def test_a_branch_to_a_person_message_opens_it_as_a_draft() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2, "Second try.")
    assert s.branch("u2") == T.render("draft", id="u2", text="Second try.")
    assert s.state.conversation.tip == "b1"


def test_branch_refusals() -> None:
    s = session()
    s.user("u1", "Go.")
    s.assistant("a1", calls=[Call("c1", "run", {}), Call("c2", "run", {})])
    s.result("r1", "c1", "one")
    s.result("r2", "c2", "two")
    s.assistant("b1", "Done.")
    assert s.branch("b1") == T.render("busy")
    s.end_turn()
    assert s.branch("r1") == T.render("branch_unclean", id="r1")
    assert s.branch("zz") == T.render("unknown_entry", id="zz", conversation="main")
    assert s.state.conversation.tip == "b1"


def test_a_fork_copies_the_path_under_new_ids() -> None:
    s = session()
    turn(s, 1, out="x", tool="read", args={"path": "a.py"})
    s.checkpoint("cp1")
    assert s.fork("f1") == T.render("forked", source="main", entry="b1", fork="f1")
    fork = s.state.conversation
    assert fork.name == "f1" and fork.forked_from == ("main", "b1")
    assert list(fork.entries) == ["f1-1", "f1-2", "f1-3", "f1-4"]
    assert [e.parent for e in fork.entries.values()] == [None, "f1-1", "f1-2", "f1-3"]
    result = fork.entries["f1-3"]
    assert isinstance(result, Result) and result.call == "c1"  # the model's call id is kept
    assert fork.labels == {}
    assert s.tree().splitlines()[0] == T.render("tree_forked", source="main", entry="b1")
    # The source is as it was.
    assert list(s.state.conversations["main"].entries) == ["u1", "a1", "r1", "b1"]


def test_a_fork_of_a_trimmed_path_sends_the_same_request() -> None:
    s = session()
    for n in range(1, 6):
        turn(s, n, "A longer message, to have something to trim. " * 2)
    s.trim("t1", 60)
    source = s.request_view()
    s.fork("f1")
    copy = s.request_view()

    def bodies(blocks: Any) -> list[tuple[str, list[str]]]:
        # Each block's kind and its lines below the header (the header names the id).
        return [(block.kind, block.text.splitlines()[1:]) for block in blocks]

    assert copy.blocks[0].text == source.blocks[0].text  # the marker, the same count
    assert bodies(copy.blocks) == bodies(source.blocks)


def test_rewind_moves_the_tip_and_leaves_a_digest() -> None:
    s = session()
    turn(s, 1)
    s.checkpoint("cp1")
    turn(s, 2)
    assert s.rewind("cp1", "d1", "Option B is slower.") == ""
    digest = s.state.conversation.entries["d1"]
    assert isinstance(digest, Digest) and digest.parent == "b1"
    assert ids(s) == ["u1", "b1", "d1"]
    expected = T.render("digest", label="cp1", report="Option B is slower.")
    assert s.request().endswith(expected)
    assert "u2" in s.state.conversation.entries  # nothing removed


def test_rewind_refusals() -> None:
    s = session()
    turn(s, 1, "A longer message, to have something to trim away later on. " * 2)
    s.checkpoint("cp1")
    turn(s, 2)
    s.checkpoint("cp2")
    assert s.rewind("cp9", "d1", "r") == T.render("rewind_unknown", label="cp9")
    s.rewind("cp2", "d2", "r")
    assert s.rewind("cp2", "d3", "r") == T.render("rewind_completed", label="cp2")
    turn(s, 3, "More, so that the cut falls after the first checkpoint. " * 2)
    assert s.trim("t1", 60).startswith("Trimmed")
    tip = s.state.conversation.tip
    assert s.rewind("cp1", "d4", "r") == T.render("rewind_dropped", label="cp1")
    assert s.state.conversation.tip == tip


def test_a_checkpoint_on_another_branch_is_dropped() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    s.checkpoint("cp1")
    s.branch("b1")
    assert s.rewind("cp1", "d1", "r") == T.render("rewind_dropped", label="cp1")


def test_the_tree_view_connects_siblings() -> None:
    s = session()
    turn(s, 1)
    turn(s, 2)
    s.checkpoint("cp1")
    s.branch("b1")
    turn(s, 3)
    lines = s.tree().splitlines()
    assert lines[:2] == ["u1 user", "b1 assistant"]
    assert lines[2].startswith("├─ u2") and lines[3].startswith("│  b2")
    assert "[cp1]" in lines[3]
    assert lines[4].startswith("└─ u3") and lines[5].startswith("   b3")
    assert lines[5].endswith("← tip")


def test_the_tree_of_an_empty_conversation_is_its_root() -> None:
    assert session().tree() == T.render("tree_tip", line=T.render("root"))


# --- trim and the ladder ---------------------------------------------------------------------


def test_a_trim_cuts_at_a_person_message_and_keeps_everything() -> None:
    s = session()
    for n in range(1, 5):
        turn(s, n, out="line\n" * 20)
    answer = s.trim("t1", 80)
    view = s.request_view()
    first = view.messages[0]
    assert first.kind == "user" and view.blocks[0].kind == "marker"
    assert answer == T.render(
        "trim_done",
        count=sum(1 for e in s.state.conversation.path() if e.kind != "trim") - len(view.messages),
        tokens=sum(b.tokens for b in view.messages),
    )
    trim = s.state.conversation.entries["t1"]
    assert isinstance(trim, Trim) and trim.cut == first.entry.id  # type: ignore[union-attr]
    assert s.trim("t2", 10_000) == T.render("trim_nothing")
    # Branching to before the trim gives the untrimmed request; back to it, the trimmed one.
    s.branch("b4")
    assert s.request_view().blocks[0].kind == "user"
    s.branch("t1")
    assert s.request_view().blocks[0].kind == "marker"


def _bulky(s: HistorySession) -> None:
    turn(s, 1, "Look.", images=["one.png"])
    turn(s, 2, out="x = 1\n" * 40, tool="read", args={"path": "app.py"}, uneventful=True)
    turn(s, 3, out="ok\n" * 60, uneventful=True)
    turn(s, 4, "And this.", images=["two.png"])
    turn(s, 5, "Thanks.")


def test_the_ladder_runs_its_rungs_in_order() -> None:
    s = session(window=100)
    _bulky(s)
    report = s.compact("s1", "We read app.py.").splitlines()
    names = [line.split()[0] for line in report]
    assert names == ["elided", "pruned", "snapshot", "summary", "request"]
    entry = s.state.conversation.entries["s1"]
    assert isinstance(entry, Compaction)
    assert entry.elided == ("r2", "r3") and entry.pruned == (("u1", 0),)
    assert entry.summary is not None and entry.summary.files == ("app.py",)
    assert s.request().startswith(T.render("summary", id="s1", summary="We read app.py."))


def test_the_ladder_stops_at_its_target() -> None:
    s = session(window=500)
    _bulky(s)
    before = s.request_view().tokens
    report = s.compact("s1", "unused").splitlines()
    assert [line.split()[0] for line in report] == ["elided", "request"]
    assert s.request_view().tokens <= 250 < before


def test_an_unflagged_result_is_never_elided() -> None:
    s = session(window=100)
    turn(s, 1, out="line\n" * 60)
    turn(s, 2)
    report = s.command("/shake", "k1")
    assert report == T.render("shake_nothing")


def test_a_snapshot_needs_vision() -> None:
    s = session(window=100, vision=False)
    _bulky(s)
    report = s.compact("s1").splitlines()
    assert [line.split()[0] for line in report] == ["elided", "pruned", "Stopped:", "request"]


def test_a_second_overflow_without_a_new_message_stops() -> None:
    s = session(window=100)
    _bulky(s)
    s.user("u6", "Go on.")
    assert s.overflow("o1", "Summary.").splitlines()[-1].startswith("request")
    assert s.overflow("o2", "Summary.") == T.render("overflow_stop")
    # The overflow's compaction belongs to the open turn: a crash loses it.
    s.crash()
    s.reload()
    assert "o1" not in s.state.conversation.entries


def test_context_counts_tokens_by_kind_and_names_the_next_rung() -> None:
    s = session(window=100)
    _bulky(s)
    lines = s.command("/context").splitlines()
    tokens = s.request_view().tokens
    assert lines[0] == f"window 100 tokens; request {tokens} tokens"
    counts = [int(part.split()[-1]) for part in lines[1].split(" · ")]
    assert sum(counts) == tokens
    assert lines[2] == "next: elide"


def test_mid_turn_operations_are_refused_and_change_nothing() -> None:
    s = session()
    turn(s, 1)
    s.user("u2", "Go.")
    records = list(s.store.records)
    busy = T.render("busy")
    assert s.checkpoint("cp1") == busy
    assert s.fork("f1") == busy
    assert s.switch("main") == busy
    assert s.trim("t1", 1) == busy
    assert s.compact("s1", "x") == busy
    assert s.command("/shake", "k1") == busy
    assert s.store.records == records


# --- as a case file holds them ---------------------------------------------------------------


START = {"op": "start", "window": 400, "vision": True}


def _steps(*steps: dict[str, Any]) -> list[dict[str, Any]]:
    return [START, *steps]


@pytest.mark.parametrize(
    ("steps", "code"),
    [
        (_steps({"op": "crash"}, {"op": "request"}), "hist-after-crash"),
        (
            _steps(
                {"op": "user", "id": "u1", "text": "a"}, {"op": "user", "id": "u1", "text": "b"}
            ),
            "hist-id-reused",
        ),
        (_steps({"op": "crash", "torn": True}), "hist-torn-nothing"),
        (
            _steps(
                {"op": "user", "id": "u1", "text": "a"},
                {"op": "result", "id": "r1", "call": "c1", "text": "x"},
            ),
            "hist-unknown-call",
        ),
        (
            _steps(
                {"op": "user", "id": "u1", "text": "a"},
                {
                    "op": "assistant",
                    "id": "a1",
                    "calls": [{"call": "c1", "tool": "run", "args": {}}],
                },
                {"op": "end_turn"},
            ),
            "hist-open-call",
        ),
        (
            _steps({"op": "user", "id": "u1", "text": "a"}, {"op": "damage", "entry": "u1"}),
            "hist-damage-unwritten",
        ),
        ([{"op": "request"}], "hist-start"),
    ],
    ids=[
        "after-crash",
        "id-reused",
        "torn-nothing",
        "unknown-call",
        "open-call",
        "damage-unwritten",
        "start",
    ],
)
def test_invalid_steps_are_problems_and_refused_runs(
    steps: list[dict[str, Any]], code: str
) -> None:
    assert code in [found[2] for found in step_problems(steps)]
    with pytest.raises(StepFailed) as failed:
        run_history_case({"steps": steps}, LOOP)
    assert str(failed.value).startswith(f"step {failed.value.index}: ")


def test_validate_places_an_invalid_history_case(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    path = spec / "conformance" / "history.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    steps = doc["cases"][0]["steps"]
    steps.insert(1, {"op": "crash"})
    doc["cases"][0]["expect"].insert(1, "")
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    done = ctxconf("validate", "--spec", spec, expect=1)
    assert "/cases/0/steps/2" in done.stdout + done.stderr


def test_the_reference_passes_the_history_cases(tmp_path: Path) -> None:
    done = ctxconf("run", "--impl", "reference", "--area", "history", "--json", tmp_path / "r.json")
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    verdicts = {case["verdict"] for case in results["cases"] if case["area"] == "history"}
    assert verdicts == {"pass"}, done.stdout


@pytest.mark.slow
def test_a_history_step_is_held_to_its_closed_shape(tmp_path: Path) -> None:
    spec = tmp_path / "spec"
    shutil.copytree(SPEC, spec)
    path = spec / "conformance" / "history.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["cases"][0]["steps"][1]["loud"] = True
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False), encoding="utf-8")
    done = ctxconf("validate", "--spec", spec, expect=1)
    assert "/cases/0/steps/1/loud" in done.stdout + done.stderr
