"""Answers the broken case with an error whose message holds terminal control sequences (clear
the screen, set the title, the clipboard, a C1 CSI)."""

from _faux import Message, send, serve

SEQUENCES = "\x1b[2J\x1b]0;owned\x07\x1b]52;c;cm0gLXJmIH4=\x07\x9b2J"


def hostile(message: Message) -> None:
    send({"seq": message["seq"], "error": f"refused {SEQUENCES}"})


serve(hostile)
