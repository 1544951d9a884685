"""HAR files, as mitmproxy's `hardump` writes them (`--set hardump=out.har`, or a flow file
converted with `mitmdump -nr flows --set hardump=out.har`).

A HAR keeps no token figures of its own: each exchange to one of the API shapes' paths is read
through its answer (`response.content.text`, base64 where `encoding` says so), whose usage
keeps the provider's own meaning of "input", converted as answers.py says: Anthropic's input
excludes the cache (uncached = `input_tokens`, writes split 5m/1h where the answer splits
them); OpenAI's and Gemini's include it (uncached = input - read - written). The request body
(`request.postData.text`) is kept with its shape; the headers without credentials. Every
other exchange (telemetry, token counts, a browser's pages) is passed over. Sessions: see
exchanges.py.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problem, Problems
from .base import Reader, dig, json_document, text_head, timestamp
from .exchanges import Exchange, audit_request

NAME = "har"


def _claims(path: Path, head: bytes) -> bool:
    if path.suffix.lower() == ".har":
        return True  # even one that is not JSON: that is said as a problem of the HAR
    text = text_head(head).lstrip()
    return text.startswith("{") and '"log"' in text[:4096] and '"entries"' in text


def _places(home: Path) -> list[Path]:
    return []  # a capture lives wherever its user wrote it


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    document = json_document(path, problems)
    if document is None:
        return
    entries = dig(document, "log", "entries")
    if not isinstance(entries, list):
        problems(Problem(Place(path), "not a HAR: no log.entries list"))
        return
    for index, entry in enumerate(entries):
        place = Place(path, pointer=f"/log/entries/{index}")
        if not isinstance(entry, dict):
            problems(Problem(place, "an entry that is not an object: passed over"))
            continue
        exchange = _exchange(entry, place, problems)
        if exchange is None:
            continue
        found = audit_request(
            exchange, source=NAME, place=place, file_session=path.name, problems=problems
        )
        if found is not None:
            yield found


def _exchange(entry: dict[str, Any], place: Place, problems: Problems) -> Exchange | None:
    url = dig(entry, "request", "url")
    if not isinstance(url, str):
        problems(Problem(place, "an entry without request.url: passed over"))
        return None
    status = dig(entry, "response", "status")
    return Exchange(
        url=url,
        request_headers=_headers(dig(entry, "request", "headers")),
        request_text=_text(dig(entry, "request", "postData"), place, problems),
        status=status if isinstance(status, int) and status > 0 else None,
        response_headers=_headers(dig(entry, "response", "headers")),
        response_text=_text(dig(entry, "response", "content"), place, problems),
        time=timestamp(entry.get("startedDateTime")),
    )


def _headers(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        (item["name"], item["value"])
        for item in value
        if isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("value"), str)
    )


def _text(content: Any, place: Place, problems: Problems) -> str | None:
    """A body's text; base64 undone where the HAR says so (a body that is not UTF-8)."""
    text = dig(content, "text")
    if not isinstance(text, str):
        return None
    if dig(content, "encoding") != "base64":
        return text
    try:
        return base64.b64decode(text, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError) as e:
        problems(Problem(place, f"a base64 body that could not be read ({e}): kept without it"))
        return None


READER = Reader(
    name=NAME,
    title="HAR captures",
    semantics="the provider's own, from each answer: Anthropic's input excludes the cache, "
    "OpenAI's and Gemini's include it (uncached = input - read - written)",
    places=_places,
    claims=_claims,
    read=_read,
)
