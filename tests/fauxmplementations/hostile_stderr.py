"""On the broken case, writes terminal control sequences to stderr (clear the screen, set the
title, a link, the clipboard, a C1 CSI), then exits with code 3 before answering."""

import sys

from _faux import Message, serve

SEQUENCES = "\x1b[2J\x1b]0;owned\x07\x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\"
SEQUENCES += "\x1b]52;c;cm0gLXJmIH4=\x07\x9b2J"


def hostile(message: Message) -> None:
    sys.stderr.write(f"hostile_stderr: {SEQUENCES}\n")
    sys.stderr.flush()
    sys.exit(3)


serve(hostile)
