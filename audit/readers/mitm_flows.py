"""mitmproxy flow files (`mitmdump -w FILE`): one tnetstring per flow, each the flow's state
as a dictionary (`type`, `request`, `response`, …; strings as bytes, keys as text).

Token figures come from each answer, as for HAR (see har.py and answers.py: Anthropic's input
excludes the cache, OpenAI's and Gemini's include it); the request body is kept with its
shape and the headers without credentials. Bodies are stored as they went over the wire, so a
gzip or deflate `content-encoding` is undone here; a response streamed through mitmproxy
(`flow.response.stream = True`) has no body, and its request has N/A figures.

The tnetstrings are read by a small parser of this module, bounded in length and depth: a
torn or hostile file is one problem, never a crash or a huge allocation. Where the `mitmproxy`
package is installed, its own migration brings a flow of an older format version to the one
read here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from ..record import AuditRequest, Place, Problem, Problems
from .base import MAX_DOCUMENT_BYTES, Reader, timestamp
from .exchanges import Exchange, audit_request, decoded

NAME = "mitm-flows"
MAX_DEPTH = 64  # a flow's state nests a few levels; more is not a flow
_LENGTH_DIGITS = 10


class TnetError(ValueError):
    """Bytes that are not a tnetstring within the limits."""


def _claims(path: Path, head: bytes) -> bool:
    return (
        re.match(rb"\d{1,10}:", head) is not None
        and re.search(rb"\d:(type|version)[;,]", head[:4096]) is not None
    )


def _places(home: Path) -> list[Path]:
    return []


def frames(file: IO[bytes]) -> Iterator[tuple[int, bytes, int]]:
    """Each top-level tnetstring of `file`: its offset, its payload and its type byte. A torn
    frame raises `TnetError` (nothing after it can be found again)."""
    offset = 0
    while True:
        digits = b""
        while True:
            char = file.read(1)
            if not char:
                if digits:
                    raise TnetError(f"the file ends inside a length at byte {offset}")
                return
            if char == b":":
                break
            if not char.isdigit() or len(digits) >= _LENGTH_DIGITS:
                raise TnetError(f"no tnetstring length at byte {offset}")
            digits += char
        length = int(digits)
        if length > MAX_DOCUMENT_BYTES:
            raise TnetError(f"a flow of {length:,} bytes at byte {offset}, past the limit")
        payload = file.read(length)
        kind = file.read(1)
        if len(payload) < length or not kind:
            raise TnetError(f"the flow at byte {offset} is torn (the file ends inside it)")
        yield offset, payload, kind[0]
        offset += len(digits) + 2 + length


def parse(payload: bytes, kind: int) -> Any:
    """A tnetstring's value, as mitmproxy's own reader gives it (dict keys as text)."""
    return _value(payload, 0, len(payload), kind, 0)


def _pop(data: bytes, start: int, end: int, depth: int) -> tuple[Any, int]:
    colon = data.find(b":", start, min(end, start + _LENGTH_DIGITS + 1))
    if colon <= start or not data[start:colon].isdigit():
        raise TnetError(f"no length at byte {start}")
    stop = colon + 1 + int(data[start:colon])
    if stop >= end:
        raise TnetError(f"a value at byte {start} runs past its container")
    return _value(data, colon + 1, stop, data[stop], depth), stop + 1


def _value(data: bytes, start: int, end: int, kind: int, depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise TnetError(f"nested deeper than {MAX_DEPTH}")
    chunk = data[start:end]
    simple = _SIMPLE.get(kind)
    if simple is not None:
        return simple(chunk)
    if kind == ord("]"):
        items, at = [], start
        while at < end:
            item, at = _pop(data, at, end, depth + 1)
            items.append(item)
        return items
    if kind == ord("}"):
        return _dict(data, start, end, depth)
    raise TnetError(f"an unknown type tag {chr(kind)!r}")


def _dict(data: bytes, start: int, end: int, depth: int) -> dict[str, Any]:
    found: dict[str, Any] = {}
    at = start
    while at < end:
        key, at = _pop(data, at, end, depth + 1)
        if at >= end:
            raise TnetError("a key without its value")
        value, at = _pop(data, at, end, depth + 1)
        found[key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else str(key)] = (
            value
        )
    return found


def _number(chunk: bytes, make: Callable[[str], Any]) -> Any:
    if len(chunk) > 64:
        raise TnetError("a number of more than 64 characters")
    try:
        return make(chunk.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as e:
        raise TnetError(f"not a number: {chunk[:20]!r}") from e


def _boolean(chunk: bytes) -> bool:
    if chunk not in (b"true", b"false"):
        raise TnetError(f"not a boolean: {chunk[:20]!r}")
    return chunk == b"true"


def _null(chunk: bytes) -> None:
    if chunk:
        raise TnetError("a null with content")


_SIMPLE: dict[int, Callable[[bytes], Any]] = {
    ord(","): lambda chunk: chunk,
    ord(";"): lambda chunk: chunk.decode("utf-8", "surrogateescape"),
    ord("#"): lambda chunk: _number(chunk, int),
    ord("^"): lambda chunk: _number(chunk, float),
    ord("!"): _boolean,
    ord("~"): _null,
}


def _migrated(state: dict[str, Any]) -> dict[str, Any]:
    """An older flow brought to the current format by mitmproxy itself, where installed."""
    try:
        from mitmproxy.io import compat  # type: ignore[import-not-found]
    except ImportError:
        return state
    migrated = compat.migrate_flow(state)
    return migrated if isinstance(migrated, dict) else state


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    try:
        with path.open("rb") as file:
            yield from _flows(path, file, problems)
    except TnetError as e:
        problems(Problem(Place(path), f"{e}: no flow after it was read"))
    except OSError as e:
        problems(Problem(Place(path), f"could not be read: {e.strerror or e}"))


def _flows(path: Path, file: IO[bytes], problems: Problems) -> Iterator[AuditRequest]:
    for number, (offset, payload, kind) in enumerate(frames(file), start=1):
        place = Place(path, pointer=f"flow {number} (byte {offset})")
        try:
            state = _migrated(parse(payload, kind))
        except (TnetError, ValueError, KeyError, TypeError) as e:
            problems(Problem(place, f"not a flow ({e}): passed over"))
            continue
        exchange = _exchange(state, place, problems) if isinstance(state, dict) else None
        if exchange is None:
            continue
        found = audit_request(
            exchange, source=NAME, place=place, file_session=path.name, problems=problems
        )
        if found is not None:
            yield found


def _exchange(state: dict[str, Any], place: Place, problems: Problems) -> Exchange | None:
    request, response = state.get("request"), state.get("response")
    if state.get("type", "http") != "http" or not isinstance(request, dict):
        return None  # a TCP, UDP or DNS flow, or a request never made
    url = _url(request)
    if url is None:
        problems(Problem(place, "a request without host or path: passed over"))
        return None
    answer = response if isinstance(response, dict) else {}
    status = answer.get("status_code")
    return Exchange(
        url=url,
        request_headers=_headers(request.get("headers")),
        request_text=_body(request, place, problems, "request"),
        status=status if isinstance(status, int) else None,
        response_headers=_headers(answer.get("headers")),
        response_text=_body(answer, place, problems, "response"),
        time=timestamp(request.get("timestamp_start")),
    )


def _text(value: Any) -> str | None:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else None


def _url(request: dict[str, Any]) -> str | None:
    host, path = _text(request.get("host")), _text(request.get("path"))
    if not host or path is None:
        return None
    scheme = _text(request.get("scheme")) or "https"
    port = request.get("port")
    default = {"https": 443, "http": 80}.get(scheme)
    where = host if not isinstance(port, int) or port == default else f"{host}:{port}"
    return f"{scheme}://{where}{path}"


def _headers(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        return ()
    pairs = (pair for pair in value if isinstance(pair, list) and len(pair) == 2)
    return tuple(
        (name, text)
        for name, text in ((_text(a), _text(b)) for a, b in pairs)
        if name is not None and text is not None
    )


def _body(message: dict[str, Any], place: Place, problems: Problems, which: str) -> str | None:
    raw = message.get("content")
    if not isinstance(raw, bytes) or not raw:
        return None
    encoding = dict((k.lower(), v) for k, v in _headers(message.get("headers")))
    plain = decoded(raw, encoding.get("content-encoding"))
    if plain is None:
        problems(Problem(place, f"the {which} body's encoding could not be undone: kept without"))
        return None
    try:
        return plain.decode("utf-8")
    except UnicodeDecodeError as e:
        problems(Problem(place, f"the {which} body is not UTF-8 at byte {e.start + 1}"))
        return None


READER = Reader(
    name=NAME,
    title="mitmproxy flow files",
    semantics="the provider's own, from each answer: Anthropic's input excludes the cache, "
    "OpenAI's and Gemini's include it (uncached = input - read - written)",
    places=_places,
    claims=_claims,
    read=_read,
)
