"""The record `ctxconf proxy --record DIR` writes (`proxy-<time>-<pid>.jsonl`, claimed from its
first line's `"format": "ctxconf-proxy-record"`): one JSON line per exchange, each holding the
provider's own usage object, the request's headers (credentials already `[redacted]`) and its
body as the proxy forwarded it.

Each exchange with a usage is one request. Its figures are the provider's, read by answers.py
from the usage object the record keeps, so each shape keeps its own meaning of "input":
Anthropic's excludes the cache (uncached = `input_tokens`, writes split 5m/1h where the answer
splits them); OpenAI's and Gemini's include it (uncached = input - read - written; Gemini
reports no writes). The body is every byte the harness sent (`body_complete`): causes come
from the bytes. A record made with `--hash-only` keeps no body, only its parts' hashes: its
causes are then inferred from the figures alone.

Not requests: a token count (`asked: count`), an exchange without usage (an error answer, a
model list, telemetry), and a refused WebSocket upgrade. An exchange that did not end whole
(`client-gone`, `upstream-error`, `interrupted`) on an API's path is one problem naming its
line and how it ended: the provider may have billed what no figure shows.

Session: the `prompt_cache_key` (its keyed hash) where the body sends one, since it is what
OpenAI routes the cache by; else the harness's own session header (Claude Code's
`x-claude-code-session-id`); else the account's keyed hash within the run (one proxy run, one
account: one cache); else the run. A run is one record file, named by its stem.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..record import AuditRequest, Place, Problem, Problems, TokenClasses
from .answers import PROVIDERS, usage_classes
from .base import Reader, json_lines, text_head, timestamp

NAME = "proxy-record"
FORMAT = "ctxconf-proxy-record"  # the proxy's record.py FORMAT: the two ways in share no code
SESSION_HEADER = "x-claude-code-session-id"
REQUEST_ID_HEADERS = ("request-id", "x-request-id")
# How an exchange that is not a request ended, and whether that is worth a problem.
_UNFINISHED = frozenset({"client-gone", "upstream-error", "interrupted"})


@dataclass(frozen=True)
class Run:
    """What the record's first line says of its run, and the file it is in."""

    path: Path
    hash_only: bool = False
    upstream: str | None = None

    @property
    def name(self) -> str:
        return self.path.stem


def run_of(path: Path, first: Mapping[str, Any]) -> Run | None:
    """The run a record's first line names, or None where it is not a proxy record's."""
    if first.get("kind") != "run" or first.get("format") != FORMAT:
        return None
    upstream = first.get("upstream")
    return Run(path, bool(first.get("hash_only")), upstream if isinstance(upstream, str) else None)


def _claims(path: Path, head: bytes) -> bool:
    first = text_head(head).partition("\n")[0]
    return first.startswith("{") and f'"format":"{FORMAT}"' in first.replace(" ", "")


def _places(home: Path) -> list[Path]:
    return []  # a record lives wherever its --record folder is


def _header(headers: Any, *names: str) -> str | None:
    if not isinstance(headers, list):
        return None
    for wanted in names:
        for pair in headers:
            if (
                isinstance(pair, list)
                and len(pair) == 2
                and str(pair[0]).lower() == wanted
                and pair[1]
            ):
                return str(pair[1])
    return None


def _pairs(headers: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(headers, list):
        return ()
    return tuple(
        (pair[0], pair[1])
        for pair in headers
        if isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], str)
        and isinstance(pair[1], str)
    )


def session_of(line: Mapping[str, Any], run: Run) -> str:
    """The session an exchange belongs to (the module's docstring says why this one)."""
    key = line.get("prompt_cache_key")
    if isinstance(key, str) and key:
        return f"prompt_cache_key:{key}"
    named = _header((line.get("request") or {}).get("headers"), SESSION_HEADER)
    if named:
        return named
    account = line.get("account")
    if isinstance(account, dict) and isinstance(account.get("hash"), str):
        return f"{run.name} account {account['hash']}"
    return run.name


def unfinished(line: Mapping[str, Any]) -> str | None:
    """Why an exchange on an API's path is no request with figures, where that is worth
    saying; None for a request, or for an exchange that is quietly not one."""
    outcome = line.get("outcome")
    if outcome in _UNFINISHED and line.get("shape") is not None:
        said = f": {line['error']}" if line.get("error") else ""
        return f"exchange #{line.get('n')} ended {outcome}{said}; not counted as a request"
    return None


def exchange_request(line: Mapping[str, Any], place: Place, run: Run) -> AuditRequest | None:
    """One exchange line as a request of the audit, or None where it is not one."""
    if line.get("kind") != "exchange" or line.get("outcome") not in ("complete", "truncated"):
        return None
    shape = line.get("shape")
    usage = line.get("usage")
    if shape not in PROVIDERS or line.get("asked") == "count" or not isinstance(usage, dict):
        return None
    read = usage_classes(str(shape), usage.get("provider"))
    if read is None:
        return None
    tokens, consistent = read
    if tokens == TokenClasses(None, None, None, None, tokens.output):
        return None
    request = line.get("request") or {}
    response = line.get("response") or {}
    body = request.get("body")
    extra: dict[str, Any] = {"exchange": line.get("n"), "path": line.get("path")}
    if not consistent:
        extra["input_meaning"] = "exclusive: the input was smaller than its cache counts"
    if line.get("outcome") == "truncated":
        extra["truncated"] = True
    status = response.get("status")
    model = line.get("model")
    return AuditRequest(
        source=NAME,
        session=session_of(line, run),
        place=place,
        tokens=tokens,
        time=timestamp((line.get("time") or {}).get("start")),
        request_id=_header(response.get("headers"), *REQUEST_ID_HEADERS),
        model=model if isinstance(model, str) else None,
        provider=PROVIDERS[str(shape)],
        body=body if isinstance(body, dict) and not run.hash_only else None,
        shape=str(shape),
        body_complete=True,
        headers=_pairs(request.get("headers")),
        status=status if isinstance(status, int) else None,
        extra=extra,
    )


def _read(path: Path, problems: Problems) -> Iterator[AuditRequest]:
    run: Run | None = None
    for number, line in json_lines(path, problems):
        place = Place(path, number)
        if run is None:
            run = run_of(path, line)
            if run is None:
                problems(Problem(place, "not a proxy record: its first line names no run"))
                return
            continue
        why = unfinished(line)
        if why is not None:
            problems(Problem(place, why))
            continue
        found = exchange_request(line, place, run)
        if found is not None:
            yield found


READER = Reader(
    name=NAME,
    title="ctxconf proxy records",
    semantics="the provider's own usage object, kept whole: Anthropic's input excludes the "
    "cache, OpenAI's and Gemini's include it (uncached = input - read - written)",
    places=_places,
    claims=_claims,
    read=_read,
)
