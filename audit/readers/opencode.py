"""opencode and Kilo: the SQLite store of opencode ≥ 1.2 (`~/.local/share/opencode/
opencode.db`, tables `session`, `message`, `part`), and the JSON files of earlier builds
(`storage/message/<session>/<message>.json`). Kilo, an opencode fork, keeps the same under
`~/.local/share/kilo`; a path through a `kilo` folder names the harness "kilo".

One assistant message is one request. Its `tokens.{input, output, reasoning, cache.{read,
write}}` are opencode's separate buckets: `input` excludes the cache (opencode sums input +
cache.read + cache.write as the context), so uncached = `input`, read = `cache.read`, written
(five-minute: no lifetime is kept) = `cache.write`, output = `output` + `reasoning`. `cost` is
opencode's own dollar figure; opencode writes 0 where it has no price for the model, so a 0 is
no figure (N/A), not a free request. A message marked `summary` is a compaction's request.

The database is opened read-only (`mode=ro`) with a short busy timeout, never `immutable`
(opencode may be writing it): a locked database, a file that is not SQLite, or one without the
`message` table is one problem each.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxconf.userfiles.limits import LimitError, parse_json

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses
from .base import Reader, amount, count, dig, first_text, json_document, text_head, timestamp

NAME = "opencode"
SQLITE_MAGIC = b"SQLite format 3\x00"
BUSY_TIMEOUT_SECONDS = 0.5
_DATABASES = ("opencode.db", "kilo.db")


def _claims(path: Path, head: bytes) -> bool:
    ours = "opencode" in path.parts or "kilo" in path.parts
    if path.name in _DATABASES or (head.startswith(SQLITE_MAGIC) and ours):
        return True
    text = text_head(head)
    return (
        path.suffix == ".json"
        and "message" in path.parts
        and '"sessionID"' in text
        and '"role"' in text
    )


def _places(home: Path) -> list[Path]:
    share = home / ".local" / "share"
    return [share / "opencode", share / "kilo"]


def _harness(path: Path) -> str:
    return "kilo" if "kilo" in path.parts else "opencode"


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    if path.suffix == ".json":
        data = json_document(path, problems)
        if isinstance(data, dict):
            session = first_text(data, "sessionID") or path.parent.name
            found = _request(path, Place(path), session, data)
            if found is not None:
                yield found
        return
    yield from _database(path, problems)


def _database(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    try:
        connection = sqlite3.connect(
            f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_SECONDS
        )
    except sqlite3.Error as e:
        problems(Problem(Place(path), f"could not be opened: {e}"))
        return
    try:
        yield from _rows(path, connection, problems)
    except sqlite3.Error as e:
        problems(Problem(Place(path), _why(e)))
    finally:
        connection.close()


def _why(error: sqlite3.Error) -> str:
    text = str(error)
    if "locked" in text or "busy" in text:
        return f"the database is locked by another program ({text}): read it again later"
    if "not a database" in text:
        return f"not a SQLite database ({text})"
    if "no such table" in text or "no such column" in text:
        return f"not an opencode database ({text})"
    return f"could not be read: {text}"


def _rows(path: Path, connection: sqlite3.Connection, problems: Problems) -> Iterator[AuditRequest]:
    cursor = connection.execute("SELECT id, session_id, data FROM message ORDER BY rowid")
    for message_id, session_id, data in cursor:
        place = Place(path, pointer=f"message {message_id}")
        value = _json(data, place, problems)
        if value is not None:
            found = _request(path, place, str(session_id), value)
            if found is not None:
                yield found


def _json(data: Any, place: Place, problems: Problems) -> dict[str, Any] | None:
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as e:
            problems(Problem(place, f"data not UTF-8 at byte {e.start + 1}: passed over"))
            return None
    try:
        value = parse_json(data) if isinstance(data, str) else None
    except (LimitError, ValueError) as e:
        problems(Problem(place, f"data not JSON ({e}): passed over"))
        return None
    return value if isinstance(value, dict) else None


def _request(path: Path, place: Place, session: str, data: dict[str, Any]) -> AuditRequest | None:
    tokens = data.get("tokens")
    if data.get("role") != "assistant" or not isinstance(tokens, dict):
        return None
    output = [count(tokens.get(k)) for k in ("output", "reasoning")]
    given = [n for n in output if n is not None]
    cost = amount(data.get("cost"))
    return AuditRequest(
        source=NAME,
        session=session,
        place=place,
        tokens=TokenClasses(
            uncached=count(tokens.get("input")),
            read=count(dig(tokens, "cache", "read")),
            written_5m=count(dig(tokens, "cache", "write")),
            written_1h=None,
            output=sum(given) if given else None,
        ),
        time=timestamp(dig(data, "time", "created")),
        request_id=first_text(data, "id"),
        model=first_text(data, "modelID"),
        provider=first_text(data, "providerID"),
        harness=_harness(path),
        project=first_text(data.get("path") or {}, "cwd"),
        cost_usd=cost if cost else None,
        boundary="compaction" if data.get("summary") is True else None,
    )


READER = Reader(
    name=NAME,
    title="opencode and Kilo sessions",
    semantics="input excludes the cache (separate buckets): uncached = tokens.input, read = "
    "tokens.cache.read, written = tokens.cache.write",
    places=_places,
    claims=_claims,
    read=_read,
)
