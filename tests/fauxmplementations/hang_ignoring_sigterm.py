"""Hangs on the broken case, ignoring SIGTERM, with a child that ignores it too; writes both pids
to the file `pids` in its folder once hung, for the test to watch."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from _faux import Message, serve

IGNORE_AND_SLEEP = (
    "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(3600)"
)


def hang(message: Message) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen([sys.executable, "-c", IGNORE_AND_SLEEP])
    Path("pids").write_text(f"{os.getpid()} {child.pid}\n")
    time.sleep(3600)


serve(hang)
