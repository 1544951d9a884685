"""The one reader of spec files and user YAML: every broken input is one SpecFileError with its
place, never a traceback, a hang or a flood of memory."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from ctxconf.errors import CtxconfError
from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.specdata.reader import CASES, LOOP, read_spec_json
from ctxconf.userfiles import limits
from ctxconf.userfiles.document import SpecFileError
from ctxconf.userfiles.useryaml import load_user_yaml
from tests.cli import ctxconf


def _loop_text() -> str:
    return (bundled_spec_dir() / "loop.json").read_text(encoding="utf-8")


def _refused(path: Path, kind: str | None = None) -> SpecFileError:
    with pytest.raises(SpecFileError) as caught:
        read_spec_json(path, kind)
    assert path.name in str(caught.value)
    return caught.value


def test_the_error_is_a_runner_error_so_run_reports_it() -> None:
    assert issubclass(SpecFileError, CtxconfError)


def test_the_bundled_files_read_cleanly() -> None:
    loop = read_spec_json(bundled_spec_dir() / "loop.json", LOOP)
    assert isinstance(loop.data, dict) and "/context" in loop.where
    for path in sorted((bundled_spec_dir() / "conformance").glob("*.json")):
        assert read_spec_json(path, CASES).data["cases"]


@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("[]", "1:1", "object"),
        ("null", "1:1", "object"),
        ('{"a": 1, "a": 2}', "1:10", "twice"),
        ('{"a": NaN}', "1:7", "NaN"),
        ('{"a": 1e400}', "1:7", "too large"),
        ('{"a": ' + "9" * 5000 + "}", "1:7", "digits"),
        ("[" * 3000 + "]" * 3000, f"1:{limits.MAX_JSON_DEPTH + 1}", "deeper"),
        ('{"a": 1,}', "1:9", "invalid JSON"),
        ("", "1:1", "invalid JSON"),
    ],
    ids=["array", "null", "duplicate", "nan", "1e400", "digits", "deep", "comma", "empty"],
)
def test_json_that_is_not_a_loop_is_refused_with_its_place(
    tmp_path: Path, text: str, place: str, words: str
) -> None:
    path = tmp_path / "loop.json"
    path.write_text(text, encoding="utf-8")
    error = _refused(path, LOOP)
    assert f"loop.json:{place}:" in str(error) and words in str(error)


def test_a_duplicate_key_is_named_by_its_pointer(tmp_path: Path) -> None:
    text = _loop_text().replace('"context": {', '"context": {\n    "sha_digits": 3,', 1)
    path = tmp_path / "loop.json"
    path.write_text(text, encoding="utf-8")
    assert "/context/sha_digits: " in str(_refused(path, LOOP))


def test_not_utf8_is_placed_at_the_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "loop.json"
    path.write_bytes(b'{\n  "v\xe9": 1}')
    assert "loop.json:2:5: not UTF-8" in str(_refused(path))


_CASE_EDITS: dict[str, Callable[[dict], None]] = {  # type: ignore[type-arg]
    "case is a string": lambda d: d["cases"].__setitem__(0, "a case"),
    "expect holds numbers": lambda d: d["cases"][0].__setitem__(
        "expect", [1] * len(d["cases"][0]["steps"])
    ),
    "steps not a list": lambda d: d["cases"][0].__setitem__("steps", {"op": "read"}),
    "content is a number": lambda d: d["cases"][0]["steps"][0].__setitem__("content", 42),
}


@pytest.mark.slow
@pytest.mark.parametrize("edit", list(_CASE_EDITS), ids=list(_CASE_EDITS))
def test_wrong_types_at_any_depth_are_refused_by_the_schema(spec: Path, edit: str) -> None:
    path = spec / "conformance" / "context.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    _CASE_EDITS[edit](data)
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    error = _refused(path, CASES)
    assert "/cases/0" in str(error)


def test_what_is_not_a_regular_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    fifo, folder, zero = tmp_path / "fifo.json", tmp_path / "dir.json", tmp_path / "zero.json"
    os.mkfifo(fifo)
    folder.mkdir()
    zero.symlink_to("/dev/zero")
    dangling = tmp_path / "gone.json"
    dangling.symlink_to(tmp_path / "nowhere.json")
    started = time.monotonic()
    assert "FIFO" in str(_refused(fifo))
    assert "folder" in str(_refused(folder))
    assert "device" in str(_refused(zero))
    assert "link to a missing file" in str(_refused(dangling))
    assert "no such file" in str(_refused(tmp_path / "missing.json"))
    # A guard, not a budget: a FIFO with no writer or /dev/zero read would never end.
    assert time.monotonic() - started < 60


def test_a_file_over_the_size_limit_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "loop.json"
    path.write_text(_loop_text(), encoding="utf-8")
    monkeypatch.setattr(limits, "MAX_SPEC_FILE_BYTES", 100)
    assert "more than the 100 a spec file may have" in str(_refused(path))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"version": "1.0.0", "cases": [], "cases": []}', "twice"),
        ('{"cases": [{"n": ' + "7" * 5000 + "}]}", "digits"),
        ('{"cases": ' + "[" * 3000 + "]" * 3000 + "}", "deeper"),
    ],
    ids=["duplicate", "digits", "deep"],
)
def test_validate_refuses_what_json_loads_would_let_through(
    tmp_path: Path, text: str, words: str
) -> None:
    path = tmp_path / "cases.json"
    path.write_text(text, encoding="utf-8")
    done = ctxconf("validate", path, expect=1)
    assert "cases.json:1:" in done.stdout and words in done.stdout
    assert "ok" not in done.stdout


# --- user YAML -----------------------------------------------------------------------------------


def _yaml(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "cases.yaml"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_yaml_keeps_a_date_as_the_text_written(tmp_path: Path) -> None:
    loaded = load_user_yaml(_yaml(tmp_path, "description: 2024-01-01\nn: [1, 2.5, true, null]\n"))
    assert loaded.data == {"description": "2024-01-01", "n": [1, 2.5, True, None]}
    assert loaded.place("/n/1") == f"{_name(tmp_path)}:2:8"


def test_yaml_places_a_key_where_it_is_written_and_a_value_where_it_starts(
    tmp_path: Path,
) -> None:
    loaded = load_user_yaml(_yaml(tmp_path, "a: 1\nblock:\n  inner: x\n"))
    assert loaded.place("/block") == f"{_name(tmp_path)}:3:3"  # the mapping, a line below
    assert loaded.place("/block", key=True) == f"{_name(tmp_path)}:2:1"
    assert loaded.place("/block/inner", key=True) == f"{_name(tmp_path)}:3:3"
    assert loaded.place("/block/gone", key=True) == f"{_name(tmp_path)}:3:3"  # its parent


def _name(tmp_path: Path) -> str:
    from ctxconf.userfiles.document import display

    return display(tmp_path / "cases.yaml")


def test_yaml_merge_keys_let_the_written_key_win(tmp_path: Path) -> None:
    text = "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n"
    assert load_user_yaml(_yaml(tmp_path, text)).data["c"] == {"x": 1, "y": 3}


def _bomb() -> str:
    lines = ["a: &a [" + ", ".join(["lol"] * 9) + "]"]
    for previous, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("text", "place", "words"),
    [
        ("a: !!binary aGVsbG8=\n", "1:4", "!!binary"),
        ("a: !!set {x, y}\n", "1:4", "!!set"),
        ("a: !!python/object/apply:os.system [ls]\n", "1:4", "python"),
        ("a: &a [*a]\n", "1:8", "inside its own anchor"),
        ("a: .nan\n", "1:4", "finite"),
        ("a: 1.0e+400\n", "1:4", "finite"),
        ("a: " + "9" * 5000 + "\n", "1:4", "digits"),
        ("a: " + "[" * 3000 + "]" * 3000 + "\n", "1:", "deeper"),
        ("? [k]\n: 1\n", "1:3", "not text"),
        ("a: 1\na: 2\n", "2:1", "twice"),
        ("a: [\n", "2:1", "not valid YAML"),
        (b"a: caf\xe9\n", "1:7", "not UTF-8"),
    ],
    ids=[
        "binary",
        "set",
        "python",
        "recursive",
        "nan",
        "inf",
        "digits",
        "deep",
        "key",
        "duplicate",
        "syntax",
        "latin1",
    ],
)
def test_yaml_json_cannot_carry_is_refused_with_its_place(
    tmp_path: Path, text: str | bytes, place: str, words: str
) -> None:
    with pytest.raises(SpecFileError) as caught:
        load_user_yaml(_yaml(tmp_path, text))
    message = str(caught.value)
    assert f"{_name(tmp_path)}:{place}" in message and words in message


def test_an_alias_bomb_is_refused_quickly(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(SpecFileError, match="aliases expand"):
        load_user_yaml(_yaml(tmp_path, _bomb()))
    # The refusal counts alias uses as they expand; the clock only guards against a blow-up
    # (the bomb expanded whole would take minutes and gigabytes).
    assert time.monotonic() - started < 60
