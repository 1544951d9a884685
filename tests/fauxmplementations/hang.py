"""Hangs on the broken case, with a child process that hangs too (the kill must reach both)."""

import subprocess
import sys
import time

from _faux import Message, serve


def hang(message: Message) -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    sys.stderr.write(f"hang: child pid {child.pid}\n")
    sys.stderr.flush()
    time.sleep(3600)


serve(hang)
