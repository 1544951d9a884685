"""`userfiles.jsonpos`: every JSON pointer of a document mapped to where its value starts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, seed, settings
from hypothesis import strategies as st

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.userfiles.jsonpos import Locator, Position, pointer, positions

# Keys chosen to need RFC 6901 escaping, JSON escaping, or both.
TRICKY = (
    '{"a/b": [1, [2, "x\\\\\\"]"], {"~k": null, "~1": true}],\r\n'
    ' "caf\\u00e9": "\U0001f600 \\ud83d\\ude00", "\U0001f600": 7,\n'
    '\t"é" :  -1.5e3, "": {"": []}, "[{": "}]", "q\\"uote": {"x": {}}}'
)


def where(text: str, offset: int) -> tuple[int, int]:
    """Line and column of an offset, counted as json.JSONDecodeError counts them."""
    return text.count("\n", 0, offset) + 1, offset - text.rfind("\n", 0, offset)


def test_tricky_document_pointers_and_places() -> None:
    found = positions(TRICKY)
    assert set(found) == {
        "",
        "/a~1b",
        "/a~1b/0",
        "/a~1b/1",
        "/a~1b/1/0",
        "/a~1b/1/1",
        "/a~1b/2",
        "/a~1b/2/~0k",
        "/a~1b/2/~01",
        "/café",
        "/\U0001f600",
        "/é",
        "/",
        "//",
        "/[{",
        '/q"uote',
        '/q"uote/x',
    }
    assert str(found["/a~1b/1/1"]) == "1:17"
    assert str(found["/a~1b/2/~01"]) == "1:47"
    assert found["/a~1b/2/~01"].offset == TRICKY.index("true")
    # An astral character counts as one column, as in json's own errors.
    assert str(found["/\U0001f600"]) == "2:38"
    assert found["/é"] == Position(3, 9, TRICKY.index("-1.5e3"))
    assert str(found["//"]) == "3:26"
    assert TRICKY[found["/[{"].offset :].startswith('"}]"')


def test_pointer_escapes_tilde_before_slash() -> None:
    assert pointer(["a/b", "~1", 0, "~/"]) == "/a~1b/~01/0/~0~1"
    assert pointer([]) == ""


def test_a_key_given_twice_keeps_the_last_value_only() -> None:
    text = '{"a": {"x": [1]}, "a": 2}'
    found = positions(text)
    assert set(found) == {"", "/a"}
    assert found["/a"].offset == text.rindex("2")


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("[1,]", 1, 4),
        ('{"a" 1}', 1, 6),
        ("[\n  NaN]", 2, 3),
        ('{"a": -Infinity}', 1, 7),
        ("1 2", 1, 3),
        ("", 1, 1),
        ("[1", 1, 3),
        ('{"a": 1,\n}', 2, 1),
        ("{1: 2}", 1, 2),
        ('["\\x"]', 1, 2),
    ],
    ids=repr,
)
def test_not_json_is_refused_with_its_place(text: str, line: int, column: int) -> None:
    with pytest.raises(json.JSONDecodeError) as raised:
        positions(text)
    assert (raised.value.lineno, raised.value.colno) == (line, column)


def walk(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[tuple[str | int, ...], Any]]:
    found: list[tuple[tuple[str | int, ...], Any]] = [(path, value)]
    if isinstance(value, dict):
        for key, member in value.items():
            found.extend(walk(member, (*path, key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(walk(item, (*path, index)))
    return found


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@pytest.mark.slow
@given(value=json_values, indent=st.sampled_from([None, 0, 2, "\t"]), ascii=st.booleans())
def test_every_pointer_points_at_its_value(
    value: Any, indent: int | str | None, ascii: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii)
    found = positions(text)
    expected = walk(value)
    assert set(found) == {pointer(path) for path, _ in expected}
    decoder = json.JSONDecoder()
    for path, member in expected:
        place = found[pointer(path)]
        assert decoder.raw_decode(text, place.offset)[0] == member
        assert (place.line, place.column) == where(text, place.offset)


# -- the locator: a few pointers of a large document, found without scanning every value -----


@pytest.mark.parametrize("text", [TRICKY, "[]", "{}", ' \n [ 1 , {"a" : [ ] } ] '])
def test_the_locator_places_what_the_full_scan_places(text: str) -> None:
    full, located = positions(text), Locator(text)
    assert {at: located[at] for at in reversed(list(full))} == full
    for missing in ("/nope", "/a~1b/9", "/a~1b/01", "/a~1b/-1", "/café/x", "//x"):
        assert missing not in located and missing not in full
    with pytest.raises(KeyError):
        located["/nope"]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["loop.json", "conformance/history.json"])
def test_the_locator_agrees_on_a_spec_file_in_any_order(name: str) -> None:
    text = (bundled_spec_dir() / name).read_text(encoding="utf-8")
    full, located = positions(text), Locator(text)
    pointers = sorted(full, key=lambda at: hash(at) % 1009)  # neither text nor reverse order
    assert [located[at] for at in pointers] == [full[at] for at in pointers]


@pytest.mark.slow
@seed(24)
@settings(max_examples=200, deadline=None)
@given(value=json_values, indent=st.sampled_from([None, 0, 2, "\t"]), ascii=st.booleans())
def test_the_locator_places_every_pointer_as_the_scan_does(
    value: Any, indent: int | str | None, ascii: bool
) -> None:
    text = json.dumps(value, indent=indent, ensure_ascii=ascii)
    full, located = positions(text), Locator(text)
    assert {at: located[at] for at in full} == full
