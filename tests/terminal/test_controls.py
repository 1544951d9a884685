"""The one helper that makes an outsider's control characters visible: every C0 and C1 control
but the line feed and the tab, as its code point, so a stderr tail or a quoted answer can neither
clear the screen, set the title, print a link nor write the clipboard."""

from __future__ import annotations

import unicodedata

import pytest

from ctxconf.terminal.controls import visible_controls
from ctxconf.terminal.textdiff import visible

# The sequences an implementation's or a harness's output can carry to a terminal.
ATTACKS = {
    "clear the screen": ("\x1b[2J\x1b[H", "⟨U+001B⟩[2J⟨U+001B⟩[H"),
    "set the title": ("\x1b]0;owned\x07", "⟨U+001B⟩]0;owned⟨U+0007⟩"),
    "a link": (
        "\x1b]8;;https://x.example\x1b\\here\x1b]8;;\x1b\\",
        "⟨U+001B⟩]8;;https://x.example⟨U+001B⟩\\here⟨U+001B⟩]8;;⟨U+001B⟩\\",
    ),
    "the clipboard": ("\x1b]52;c;cm0gLXJmIH4=\x07", "⟨U+001B⟩]52;c;cm0gLXJmIH4=⟨U+0007⟩"),
    "C1 CSI": ("\x9b2J", "⟨U+009B⟩2J"),
    "C1 OSC": ("\x9d0;owned\x9c", "⟨U+009D⟩0;owned⟨U+009C⟩"),
    "carriage return": ("ok\rFAIL", "ok⟨U+000D⟩FAIL"),
    "backspace and DEL": ("a\x08\x7f", "a⟨U+0008⟩⟨U+007F⟩"),
}


@pytest.mark.parametrize("attack", list(ATTACKS), ids=list(ATTACKS))
def test_each_sequence_is_shown_not_obeyed(attack: str) -> None:
    raw, shown = ATTACKS[attack]
    assert visible_controls(raw) == shown


def test_nothing_a_terminal_obeys_is_left() -> None:
    every = "".join(chr(c) for c in [*range(0x20), *range(0x7F, 0xA0)])
    shown = visible_controls(every)
    assert [c for c in shown if unicodedata.category(c) == "Cc"] == ["\t", "\n"]
    assert visible_controls(shown) == shown  # shown once is shown for good


def test_lines_tabs_and_other_text_are_kept() -> None:
    text = "line 1\n\tindented café ✓ \u2028 kept\n"
    assert visible_controls(text) == text
    assert visible_controls(text, also="\u2028") == "line 1\n\tindented café ✓ ⟨U+2028⟩ kept\n"


def test_the_diffs_show_controls_the_same_way() -> None:
    # textdiff shows tabs and carriage returns as arrows; every other control as the helper does.
    assert visible("\x1b[2J\t\r\ufeff ") == "⟨U+001B⟩[2J→␍⟨U+FEFF⟩·"
