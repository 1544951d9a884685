"""A watcher run in a process of its own: its words come back for each exchange, its own fault
costs its words, its death costs the rest of its words, never the proxy."""

from __future__ import annotations

import io
import os
import signal
from pathlib import Path

from ctxconf.proxy.apart import WatcherApart

from .apart_watchers import Counting


def test_the_words_come_from_another_process_and_the_end_is_said() -> None:
    watcher = WatcherApart(Counting)
    try:
        watcher.started(Path("/records/run.jsonl"))
        first = watcher.exchange({"n": 1})
        assert first.startswith("#1 of run.jsonl in ") and not first.endswith(f" {os.getpid()}")
        assert watcher.exchange({"fail": True}) == (
            "[the live view failed: ValueError: a view's own fault]"
        )
        assert watcher.exchange({"n": 3}).startswith("#3 of run.jsonl")
        out = io.StringIO()
        watcher.ended(out)
        assert out.getvalue() == "3 seen\n"
    finally:
        watcher.close()


def test_a_view_that_dies_is_said_once_and_then_left_out() -> None:
    watcher = WatcherApart(Counting)
    try:
        watcher.started(Path("/records/run.jsonl"))
        assert watcher.exchange({"die": True}) == "[the live view stopped: EOFError]"
        assert watcher.exchange({"n": 2}) == ""
        out = io.StringIO()
        watcher.ended(out)
        assert out.getvalue() == ""
    finally:
        watcher.close()


def test_a_ctrl_c_to_the_whole_group_leaves_the_view_to_say_its_end() -> None:
    watcher = WatcherApart(Counting)
    try:
        watcher.started(Path("/records/run.jsonl"))
        assert watcher.exchange({"n": 1}).startswith("#1 ")
        assert watcher.pid is not None
        os.kill(watcher.pid, signal.SIGINT)  # as a terminal's Ctrl-C reaches every process
        os.kill(watcher.pid, signal.SIGTERM)
        assert watcher.exchange({"n": 2}).startswith("#2 ")
        out = io.StringIO()
        watcher.ended(out)
        assert out.getvalue() == "2 seen\n"
    finally:
        watcher.close()
