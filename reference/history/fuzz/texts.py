"""The pieces a history session is drawn from: the ops, texts of every size, calls, images."""

from __future__ import annotations

from typing import Any

# The person's message, then what can be looked at any time (so that any few of the first ops
# make sessions on their own), then the rest of a turn, the crashes, the moves, the ladder.
HISTORY_OPS = (
    "user",
    "request",
    "transcript",
    "tree",
    "assistant",
    "result",
    "end_turn",
    "crash",
    "reload",
    "damage",
    "retry",
    "branch",
    "fork",
    "switch",
    "checkpoint",
    "rewind",
    "trim",
    "compact",
    "overflow",
    "command",
)

# Windows around the ladder's numbers (history.ladder: keep_tokens 60, target 0.5, an image 50
# tokens), so that some sessions never compact, and some must.
WINDOWS = (100000, 300, 600, 1500)
USER_TEXTS = (
    "Fix the flaky test.",
    "Where are we?",
    "é 😀\nsecond line",
    "Add a cache to the reader, then run the tests.",
)
ASSISTANT_TEXTS = ("Reading the file.", "Done: the test passes now.", "é 😀 ok\nnext line", "")
SUMMARIES = ("The tests pass; the cache is next.", "Summary: é 😀\nthe reader is cached.")
REPORTS = ("Nothing useful in the logs.", "The bug is in cache.py:\nline 12 is off by one.")
IMAGES = ("shot.png", "diagram 2.png", "ü.jpg")
PATHS = ("src/reader.py", "tests/test_cache.py", "ü docs.md")
COMMANDS = ("/shake", "/compact", "/compact keep the test names", "/context", "/tree", "/undo")
TRIM_BUDGETS = (0, 20, 60, 150, 400, 100000)
LABELS = ("cp1", "cp2", "cp3", "before-refactor")
FORK_NAMES = ("f1", "f2", "side")
# Lines a result's text is made of; a count of them sets its size (4 characters a token).
_RESULT_LINE = "line {n}: ok é"
RESULT_SIZES = (0, 1, 3, 8, 25, 70)
SHORT_RESULTS = ("ok", "3 files\nchanged", "Error: no such file")


def result_text(lines: int, short: int) -> str:
    """A result's text: one of the short ones, or `lines` numbered lines."""
    if lines < 2:
        return SHORT_RESULTS[short] if lines else ""
    return "\n".join(_RESULT_LINE.format(n=n) for n in range(1, lines + 1))


def call_args(tool: str, path: str, nested: bool) -> dict[str, Any]:
    """A call's arguments, their keys out of order (the request sorts them)."""
    if tool == "read":
        args: dict[str, Any] = {"path": path}
        if nested:
            args = {"range": {"to": 40, "from": 1}, **args}
        return args
    if tool == "bash":
        return {"timeout": 60, "command": "pytest -q"} if nested else {"command": "ls"}
    return {"path": path, "new": "b", "old": "a é"}


TOOLS = ("read", "bash", "edit")
