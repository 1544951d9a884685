"""One cause, one line: a turn that sent nothing is said once, with what may be behind it (the
mock's URL the profile gives the harness), each check it left without a verdict refers to it,
and the count tells the checks that could not be judged from those that failed."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from ctxconf.probe import results
from ctxconf.probe.causes import check_summary, count_line
from ctxconf.probe.checks import judge_run
from ctxconf.probe.harness import ProbeRun, ProcessRun, SessionRun
from ctxconf.probe.profile import load_profile
from ctxconf.probe.scenario import load_scenario
from tests.cli import ctxconf

from .helpers import fake_profile

URL = "http://127.0.0.1:4321"


def _profile(folder: Path, **fields: Any) -> Path:
    path = fake_profile(folder)
    data = json.loads(path.read_text())
    data["env"] = {"OPENAI_BASE_URL": "{base_url}/v1", "OPENAI_API_KEY": "dummy"}
    data.update(fields)
    path.write_text(json.dumps(data))
    return path


def _exited(turn: int, code: int | None, stderr: str, first: int = 0, last: int = 0) -> ProcessRun:
    return ProcessRun(0, [turn], ["h"], code, 0.1, code is None, "", stderr, first, last)


def _run(
    folder: Path,
    processes: list[ProcessRun],
    entries: list[dict[str, Any]] | None = None,
    **fields: Any,
) -> ProbeRun:
    """The basic scenario as a harness played it, made by hand: its processes, and what the
    mock logged."""
    session = SessionRun(0, None, entries or [], processes, base_url=URL)
    profile = load_profile(str(_profile(folder, **fields)))
    now = datetime.now().astimezone()
    return ProbeRun(profile, load_scenario("basic"), "1.0", now, now, None, [session])


def _data(run: ProbeRun) -> dict[str, Any]:
    return results.to_data(run, judge_run(run), [])


def test_two_turns_that_exited_alike_having_sent_nothing_are_one_cause(tmp_path: Path) -> None:
    run = _run(tmp_path, [_exited(0, 1, "error: no model\n"), _exited(1, 1, "error: no model\n")])
    data = _data(run)
    assert [s["reason"] for s in data["shortfalls"]] == [
        "turns 1 and 2 sent no request: the process exited 1 after 0.1 s, stderr: error: no "
        "model (turn 2 ended the same way); is the harness using the mock's base URL? the "
        f"profile set OPENAI_BASE_URL={URL}/v1"
    ]
    unjudged = [c for c in data["checks"] if c["verdict"] == "error"]
    assert len(unjudged) == 13  # the reasoning checks of a Chat harness among them
    for check in unjudged:
        assert check["figures"]["causes"] == [1], check
        assert check_summary(check, data["shortfalls"]) == (
            "could not be judged: [1] turns 1 and 2 sent no request"
        )
    assert count_line(data["checks"]) == "1 cause, 13 checks could not be judged"


def test_turns_that_ended_otherwise_are_causes_of_their_own(tmp_path: Path) -> None:
    run = _run(tmp_path, [_exited(0, 1, "error: no model\n"), _exited(1, None, "")])
    data = _data(run)
    reasons = [s["reason"] for s in data["shortfalls"]]
    assert [r.split(":")[0] for r in reasons] == [
        "turn 1 sent no request",
        "turn 2 sent no request",
    ]
    assert "the process timed out" in reasons[1]
    assert count_line(data["checks"]) == "2 causes, 13 checks could not be judged"


def test_no_hint_of_the_url_once_the_mock_was_reached(tmp_path: Path) -> None:
    # Turn 1 reached the mock (a request it answered without tools: the URL works), turn 2
    # exited at once: its reason is its exit alone.
    entries = [{"n": 1, "kind": "answer", "method": "POST", "path": "/v1/chat/completions"}]
    run = _run(tmp_path, [_exited(0, 0, "", 0, 1), _exited(1, 1, "error: resume\n", 1, 1)], entries)
    reasons = [s["reason"] for s in _data(run)["shortfalls"]]
    assert "turn 2 sent no request: the process exited 1 after 0.1 s, stderr: error: resume" in (
        reasons
    )
    assert not any("base URL" in reason for reason in reasons), reasons


def test_a_request_on_a_path_the_mock_does_not_serve_is_named(tmp_path: Path) -> None:
    entries = [{"n": 1, "method": "POST", "path": "/v1/chat/completion", "shape": None}]
    run = _run(tmp_path, [_exited(0, 1, "404\n", 0, 1), _exited(1, 1, "404\n", 1, 1)], entries)
    (reason,) = [s["reason"] for s in _data(run)["shortfalls"]]
    assert (
        "the mock got 1 request on a path it does not serve for openai-chat "
        "(POST /v1/chat/completion): is the base URL's path right? the profile set "
        f"OPENAI_BASE_URL={URL}/v1"
    ) in reason


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        (
            {"env": {"OTHER": "x"}, "files": {"work/own.json": '{"url": "{base_url}"}'}},
            "the profile wrote it into work/own.json",
        ),
        (
            {"env": {"OTHER": "x"}},
            "the profile gives it ({base_url}) to the harness in no variable, file or command",
        ),
    ],
    ids=["in-a-file", "nowhere"],
)
def test_the_hint_says_where_the_profile_gives_the_url(
    tmp_path: Path, fields: dict[str, Any], said: str
) -> None:
    run = _run(tmp_path, [_exited(0, 1, ""), _exited(1, 1, "")], **fields)
    (reason,) = [s["reason"] for s in _data(run)["shortfalls"]]
    assert reason.endswith("is the harness using the mock's base URL? " + said), reason


def test_the_count_tells_failed_checks_from_those_not_judged() -> None:
    def check(verdict: str, causes: list[int] | None = None) -> dict[str, Any]:
        return {"verdict": verdict, "summary": "s", "figures": {"causes": causes} if causes else {}}

    assert count_line([check("pass"), check("fail")]) == "1 check failed"
    assert count_line([check("pass")]) == "0 checks failed"
    mixed = [check("fail"), check("error"), check("error", [1]), check("error", [1, 2])]
    assert count_line(mixed) == "2 checks failed; 2 causes, 2 checks could not be judged"


@pytest.mark.slow
def test_the_console_and_the_page_say_the_cause_once(tmp_path: Path) -> None:
    code = "import sys; sys.exit('error: no model is configured')"
    command = [sys.executable, "-c", code, "{message}"]
    profile = _profile(tmp_path, drive={"mode": "per-turn", "command": command, "resume": command})
    out = tmp_path / "r"
    done = ctxconf(
        "probe", "--harness", profile, "--json", out.with_suffix(".json"),
        "--html", out.with_suffix(".html"), expect=1,
    )  # fmt: skip
    lines = done.stdout.splitlines()
    causes = [line for line in lines if line.startswith("  [")]
    assert len(causes) == 1 and causes[0].startswith("  [1] turns 1 and 2 sent no request: the")
    assert (
        "is the harness using the mock's base URL? the profile set OPENAI_BASE_URL=" in (causes[0])
    )
    assert done.stdout.count("no model is configured") == 1
    errors = [line for line in lines if line.lstrip().startswith("error ")]
    assert len(errors) == 13 and all(
        line.endswith("could not be judged: [1] turns 1 and 2 sent no request") for line in errors
    ), errors
    assert lines[-1] == "1 cause, 13 checks could not be judged"
    page = out.with_suffix(".html").read_text()
    assert page.count('<li class="error">turns: turns 1 and 2 sent no request: the') == 1
    assert page.count("could not be judged: [1] turns 1 and 2 sent no request") == 13
