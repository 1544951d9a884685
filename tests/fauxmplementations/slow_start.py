"""Takes SECONDS (its argument) to start, longer than a case may take (an interpreter on a loaded
machine, a compile at start), every time it starts; crashes on the broken case, so that the next
case starts it again; answers every other case as the reference does."""

import sys
import time

from _faux import Message, serve


def crash(message: Message) -> None:
    sys.exit(3)


time.sleep(float(sys.argv[1]))
serve(crash)
