"""Broken spec folders, built at random: every spec command and `run --spec` ends with exit 1 or
2 and a message naming the broken file, in bounded time, never with a traceback.

Each example is a copy of the bundled spec with one file broken one way: cut short, a value of
the wrong type, nesting past the limit, a number past the limits, a key given twice, a byte that
is not UTF-8, or the file replaced by a FIFO, a folder or a dangling link. The commands run in
this process through `ctxconf.cli.main`, their streams captured.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from ctxconf.cli import main
from ctxconf.specdata.paths import bundled_spec_dir

pytestmark = pytest.mark.slow  # broken spec folders at random, through every command

JSON_FILES = ["loop.json", "conformance/context.json", "conformance/prefix.json"]
SHOWN_CASE = "lines-end-at-newline-only"
SECONDS_PER_COMMAND = 30


class _TookTooLong(Exception):
    pass


@contextlib.contextmanager
def _bounded(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        raise _TookTooLong(f"more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _pointers(value: Any, at: str = "") -> Iterator[tuple[str, Any]]:
    yield at, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _pointers(item, f"{at}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _pointers(item, f"{at}/{index}")


def _replace(data: Any, at: str, new: Any) -> Any:
    if not at:
        return new
    *parents, last = at.split("/")[1:]
    holder = data
    for key in parents:
        holder = holder[int(key)] if isinstance(holder, list) else holder[key]
    if isinstance(holder, list):
        holder[int(last)] = new
    else:
        holder[last] = new
    return data


_OTHER_TYPE = {
    str: 42,
    int: "42",
    float: [],
    bool: "true",
    type(None): {},
    list: "a list",
    dict: [1],
}


_MARK = "\u0000broken here\u0000"
_HUGE = ("1e400", "9" * 5000)


@st.composite
def broken_specs(draw: st.DrawFn) -> tuple[str, str, Any]:
    """(file, how, detail): which file of the spec is broken, how, and the draw that says where."""
    how = draw(
        st.sampled_from(
            [
                "truncate",
                "wrong type",
                "deep",
                "huge",
                "duplicate",
                "latin1",
                "fifo",
                "dir",
                "dangling",
            ]
        )
    )
    file = draw(st.sampled_from(JSON_FILES + (["context.md"] if how in ("latin1", "fifo") else [])))
    detail = draw(st.integers(min_value=0, max_value=10**9))
    return file, how, detail


def _break(spec: Path, file: str, how: str, detail: int) -> None:
    path = spec / file
    text = path.read_text(encoding="utf-8")
    if how == "truncate":
        path.write_text(text[: detail % max(1, len(text.rstrip()))], encoding="utf-8")
    elif how in ("wrong type", "huge", "deep"):
        data = json.loads(text)
        places = list(_pointers(data))
        at, old = places[detail % len(places)]
        if how == "wrong type":
            path.write_text(json.dumps(_replace(data, at, _OTHER_TYPE[type(old)])))
        else:
            # A marker string stands where the raw text goes, which json.dumps cannot write.
            body = json.dumps(_replace(data, at, _MARK))
            raw = "[" * 3000 + "]" * 3000 if how == "deep" else _HUGE[detail % 2]
            path.write_text(body.replace(json.dumps(_MARK), raw), encoding="utf-8")
    elif how == "duplicate":
        first = text.index("{")
        key = '"version": "0.0.1", ' if file == "loop.json" else '"area": "context", '
        path.write_text(text[: first + 1] + key + text[first + 1 :], encoding="utf-8")
    elif how == "latin1":
        raw = path.read_bytes()
        cut = detail % len(raw)
        path.write_bytes(raw[:cut] + b"\xe9" + raw[cut:])
    else:
        path.unlink()
        if how == "fifo":
            os.mkfifo(path)
        elif how == "dir":
            path.mkdir()
        else:
            path.symlink_to(spec / "nowhere.json")


COMMANDS = [
    ["validate"],
    ["lint"],
    ["check"],
    ["regen", "--check"],
    ["show", SHOWN_CASE],
    ["run", "--impl", "reference", "-q"],
]


def _run(argv: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with _bounded(SECONDS_PER_COMMAND):
            try:
                code = main(argv)
            except SystemExit as stopped:
                code = int(stopped.code or 0)
    return code, out.getvalue() + err.getvalue()


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    # Shrinking reruns six commands per try; the draw is small enough to read as it is.
    phases=[Phase.explicit, Phase.generate],
)
@given(broken=broken_specs())
def test_a_broken_spec_is_refused_by_every_command(broken: tuple[str, str, int]) -> None:
    file, how, detail = broken
    with tempfile.TemporaryDirectory() as temp:
        spec = Path(temp) / "spec"
        shutil.copytree(bundled_spec_dir(), spec)
        _break(spec, file, how, detail)
        validated, _ = _run(["validate", "--spec", str(spec)])
        # A value of another type where the schema takes any JSON (a provider's body) breaks
        # nothing; such a draw says nothing here.
        assume(validated != 0 or file == "context.md")
        name = Path(file).name
        for command in COMMANDS:
            argv = [*command, "--spec", str(spec)]
            if command[0] == "run":
                argv += ["--json", str(Path(temp) / "r.json")]
            if file == "context.md" and command[0] not in ("lint", "check"):
                continue  # only these read the spec's text
            started = time.monotonic()
            code, output = _run(argv)
            where = f"{' '.join(command)} on {file} ({how}, {detail}):\n{output}"
            assert code in (1, 2), where
            assert name in output, where
            assert "Traceback" not in output, where
            assert time.monotonic() - started < SECONDS_PER_COMMAND, where


@pytest.mark.parametrize("how", ["fifo", "dir", "dangling"])
def test_a_path_that_is_no_file_is_refused_in_place_of_loop_json(how: str) -> None:
    with tempfile.TemporaryDirectory() as temp:
        spec = Path(temp) / "spec"
        shutil.copytree(bundled_spec_dir(), spec)
        _break(spec, "loop.json", how, 0)
        for command in COMMANDS:
            code, output = _run(
                [
                    *command,
                    "--spec",
                    str(spec),
                    *(["--json", str(Path(temp) / "r.json")] if command[0] == "run" else []),
                ]
            )
            assert code == 2 and "loop.json" in output, f"{command}: {output}"
