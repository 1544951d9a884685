"""On the broken case, starts a child that keeps its stdout open, then exits with code 5
without answering: the pipe stays open though the implementation is gone."""

import subprocess
import sys

from _faux import Message, serve


def exit_behind_a_child(message: Message) -> None:
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    sys.exit(5)


serve(exit_behind_a_child)
