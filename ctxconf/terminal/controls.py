"""Text from outside made safe to print: an implementation's or a harness's stderr, a message
that quotes its answer, a name it chose.

A terminal obeys the control characters in what it is sent: `ESC[2J` clears the screen, an OSC
sequence sets the window title, prints a link (OSC 8) or, where the terminal allows, writes the
clipboard (OSC 52), and a carriage return lets a line hide the one before it. Every C0 control
but the line feed and the tab, DEL, and every C1 control are shown instead as their code point,
`⟨U+001B⟩`, the way a diff of outputs shows them.
"""

from __future__ import annotations

import re
from functools import cache

# C0 but tab (U+0009) and line feed (U+000A), DEL, C1.
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f"


def code_point(char: str) -> str:
    """How one character is shown in place of itself: `⟨U+001B⟩`."""
    return f"⟨U+{ord(char):04X}⟩"


@cache
def _pattern(also: str) -> re.Pattern[str]:
    return re.compile(f"[{_CONTROLS}{re.escape(also)}]")


def visible_controls(text: str, *, also: str = "") -> str:
    """`text` with its control characters (and those of `also`) shown as their code points;
    line feeds and tabs are kept, so the text keeps its lines."""
    return _pattern(also).sub(lambda match: code_point(match.group()), text)
