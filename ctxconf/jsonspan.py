"""Where each value of a JSON text starts and ends, by JSON pointer.

The standard `json` module keeps no positions; a spec editor's file must be changed in place
(only the values regenerated, every other byte kept), so the spans come from this small scanner,
which accepts exactly what `json.loads` accepts for well-formed input.
"""

from __future__ import annotations

import json
import re

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def value_spans(text: str) -> dict[str, tuple[int, int]]:
    """Map every JSON pointer in `text` to the [start, end) offsets of its value."""
    spans: dict[str, tuple[int, int]] = {}

    def skip(pos: int) -> int:
        match = _WHITESPACE.match(text, pos)
        assert match is not None
        return match.end()

    def value(pos: int, pointer: str) -> int:
        pos = skip(pos)
        start = pos
        char = text[pos : pos + 1]
        if char == "{":
            pos = skip(pos + 1)
            if text[pos] == "}":
                pos += 1
            else:
                while True:
                    match = _STRING.match(text, pos)
                    if match is None:
                        raise ValueError(f"expected a key at offset {pos}")
                    key = json.loads(match.group())
                    pos = skip(match.end())
                    if text[pos] != ":":
                        raise ValueError(f"expected ':' at offset {pos}")
                    pos = skip(value(pos + 1, f"{pointer}/{_escape(key)}"))
                    if text[pos] == "}":
                        pos += 1
                        break
                    if text[pos] != ",":
                        raise ValueError(f"expected ',' or '}}' at offset {pos}")
                    pos = skip(pos + 1)
        elif char == "[":
            pos = skip(pos + 1)
            if text[pos] == "]":
                pos += 1
            else:
                index = 0
                while True:
                    pos = skip(value(pos, f"{pointer}/{index}"))
                    index += 1
                    if text[pos] == "]":
                        pos += 1
                        break
                    if text[pos] != ",":
                        raise ValueError(f"expected ',' or ']' at offset {pos}")
                    pos += 1
        else:
            match = (_STRING if char == '"' else _SCALAR).match(text, pos)
            if match is None:
                raise ValueError(f"expected a value at offset {pos}")
            pos = match.end()
        spans[pointer] = (start, pos)
        return pos

    value(0, "")
    return spans
