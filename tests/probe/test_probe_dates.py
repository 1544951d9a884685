"""A date of the run is found in every form harnesses write it, in the system prompt and in
every tool's description; the date note is judged whole, and not at all for a harness that
never states a date."""

from __future__ import annotations

import sys
from datetime import date, datetime
from pathlib import Path

import pytest

from ctxconf.probe.checks.dates import find_date

from .helpers import FAKES, checks_of, run_fake

sys.path.insert(0, str(FAKES))
from dated import FORMS, written  # the fake's own forms, so that the two agree

DAY = date(2026, 12, 1)  # a day whose number a form may or may not pad
MOMENT = datetime(2026, 12, 1, 18, 32, 50, 123456)


@pytest.mark.parametrize("form", sorted(FORMS))
def test_each_form_of_the_day_is_found(form: str) -> None:
    text = f"Context: {written(form, MOMENT)}; be brief."
    assert find_date(text, [DAY]) is not None, text


@pytest.mark.parametrize(
    "text",
    [
        "Tue Dec  1 18:32:50 2026",  # ctime() pads the day with a space
        "Tuesday, December 01, 2026",
        "1st of December, 2026",
        "Dec. 1, 2026",
        "<CURRENT_DATETIME>2026-12-01T18:32:50.123456</CURRENT_DATETIME>",
    ],
)
def test_the_forms_real_harnesses_wrote_are_found(text: str) -> None:
    assert find_date(text, [DAY]) is not None


@pytest.mark.parametrize(
    "text",
    ["2026-12-10", "December 11, 2026", "v1.12.2026", "11.12.2026", "12/1/2027", "20261201x"],
)
def test_another_day_or_a_version_number_is_no_date_of_the_run(text: str) -> None:
    assert find_date(text, [DAY]) is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("where", "form", "shape"),
    [
        ("prompt", "long-padded-weekday", "chat"),
        ("prompt", "ctime", "anthropic"),
        ("prompt", "rfc2822", "responses"),
        ("prompt", "iso-microseconds", "gemini"),
        ("tool", "us", "chat"),
        ("tool", "javascript", "gemini"),
    ],
)
def test_a_date_in_the_prompt_or_a_tool_fails_no_clock_where_the_clean_twin_passes(
    tmp_path: Path, where: str, form: str, shape: str
) -> None:
    faulty = checks_of(
        run_fake(tmp_path / "f", shape, variant="dated", options=("--where", where, "--form", form))
    )["no-clock"]
    assert faulty.verdict == "fail", faulty
    place = "the system prompt" if where == "prompt" else "the description of `"
    assert f"the date of the run is in {place}" in faulty.summary
    clean = checks_of(run_fake(tmp_path / "c", shape))["no-clock"]
    assert clean.verdict == "pass", clean


@pytest.mark.slow
def test_two_days_tell_apart_a_tool_description_that_holds_the_day(tmp_path: Path) -> None:
    checks = checks_of(
        run_fake(
            tmp_path,
            "anthropic",
            "two-days",
            variant="dated",
            options=("--where", "tool", "--form", "long"),
        )
    )
    assert checks["no-clock"].verdict == "fail"
    assert "the description of `Bash`" in checks["no-clock"].summary
    assert "January 15, 2027" in checks["no-clock"].summary


@pytest.mark.slow
def test_a_harness_that_never_states_a_date_cannot_be_judged_on_the_note(tmp_path: Path) -> None:
    checks = checks_of(run_fake(tmp_path, "chat", "midnight", variant="dateless"))
    assert checks["date-note"].verdict == "not-testable"
    assert "never states a date" in checks["date-note"].summary
    assert checks["system-once"].verdict == "pass"


@pytest.mark.slow
def test_a_failed_note_names_every_half_of_what_went_wrong_and_what_held(tmp_path: Path) -> None:
    # The reminder it appends to the last user message and drops later rewrites history; the new
    # date still rides on the next message, and the summary says both.
    checks = checks_of(run_fake(tmp_path, "gemini", "midnight", faults=("rewritten-previous",)))
    summary = checks["date-note"].summary
    assert checks["date-note"].verdict == "fail"
    assert "already sent was rewritten" in summary
    assert "the new date (2027-01-16) does ride on the next user message" in summary
