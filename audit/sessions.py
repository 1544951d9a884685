"""An audit from files to sessions in one pass: each file read by its reader, its sessions'
bodies played through the cache audit while that file's requests are at hand, the bodies then
let go, so memory grows with the number of requests and not with the size of the files."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from ctxconf.cache import PriceTable
from ctxconf.cache.units import units_reused

from .bytes_evidence import BytesFinding, bytes_findings
from .record import AuditRequest, Place, Problem, Problems
from .savings import Saving, session_savings
from .scan import Found
from .timeline import Step, session_timeline


@dataclass(frozen=True)
class Filters:
    since: datetime | None = None
    harness: str | None = None
    project: str | None = None

    def keep(self, request: AuditRequest) -> bool:
        if self.since is not None and (request.time is None or request.time < self.since):
            return False
        if self.harness is not None and self.harness not in (request.harness, request.source):
            return False
        return self.project is None or self.project in (request.project or "")


@dataclass(frozen=True)
class SessionAudit:
    source: str
    session: str
    steps: tuple[Step, ...]
    savings: tuple[Saving, ...] = ()  # what each fix would have saved, where bodies were kept

    @property
    def requests(self) -> list[AuditRequest]:
        return [step.request for step in self.steps]

    @property
    def first(self) -> AuditRequest:
        return self.steps[0].request

    @property
    def harness(self) -> str:
        return self.first.harness or self.source

    @property
    def project(self) -> str | None:
        return next((r.project for r in self.requests if r.project), None)

    @property
    def started(self) -> datetime | None:
        return next((r.time for r in self.requests if r.time is not None), None)

    @property
    def losses(self) -> list[Step]:
        return [step for step in self.steps if step.lost > 0]


Held = tuple[AuditRequest, BytesFinding | None]


def in_order(requests: Sequence[AuditRequest]) -> list[int]:
    """A session's requests' places in the order they were sent: by time where every one has
    a time (files of one session may be read out of order), else as read."""
    places = list(range(len(requests)))
    if all(request.time is not None for request in requests):
        places.sort(key=lambda n: requests[n].time)  # type: ignore[arg-type,return-value]
    return places


def _file_requests(found: Found, problems: Problems, filters: Filters) -> list[AuditRequest]:
    try:
        return [r for r in found.reader.read(found.path, problems) if filters.keep(r)]
    except OSError as e:
        problems(Problem(Place(found.path), f"could not be read: {e.strerror or e}"))
    except Exception as e:  # a reader's own fault must cost one file, never the scan
        problems(Problem(Place(found.path), f"{found.reader.name} could not read it: {e!r}"))
    return []


def _with_findings(
    requests: list[AuditRequest],
    problems: Problems,
    table: PriceTable,
    savings: dict[tuple[str, str], list[Saving]],
) -> list[Held]:
    """The file's requests with what their bodies say, and what each fix would have saved
    (into `savings`), the bodies then let go."""
    by_session: dict[str, list[int]] = {}
    for index, request in enumerate(requests):
        by_session.setdefault(request.session, []).append(index)
    findings: dict[int, BytesFinding] = {}
    for indexes in by_session.values():
        session = [requests[i] for i in indexes]
        if not any(r.body is not None for r in session):
            continue
        order = in_order(session)
        ordered = [session[n] for n in order]
        try:
            # Only the requests the figures say lost something need the bytes' diagnosis.
            losses = {i for i, step in enumerate(session_timeline(ordered)) if step.lost > 0}
            with units_reused():  # the session's bodies share their history's blocks
                found = bytes_findings(ordered, losses)
                saved = session_savings(ordered, table)
        except Exception as e:  # a body no shape reader expected: the figures still stand
            problems(Problem(session[0].place, f"its bodies could not be compared: {e!r}"))
            continue
        savings.setdefault((session[0].source, session[0].session), []).extend(saved)
        findings.update({indexes[order[k]]: finding for k, finding in found.items()})
    return [
        (dataclasses.replace(request, body=None), findings.get(index))
        for index, request in enumerate(requests)
    ]


def _figures(request: AuditRequest) -> int:
    tokens = request.tokens
    return sum(f is not None for f in (tokens.uncached, tokens.read, tokens.written))


def _hold(
    held: dict[tuple[str, str], list[Held]],
    named: dict[tuple[str, str, str], int],
    request: AuditRequest,
    finding: BytesFinding | None,
) -> None:
    """A request into its session, once: two files of one source that record the same request
    of the same session (Copilot's events and its OTel export: the same call id) are one
    request, the record with more of the figures kept (the first on a tie). Within one file the
    reader has already told its requests apart."""
    session = held.setdefault((request.source, request.session), [])
    if request.request_id is None:
        session.append((request, finding))
        return
    key = (request.source, request.session, request.request_id)
    index = named.get(key)
    if index is None:
        named[key] = len(session)
        session.append((request, finding))
        return
    kept = session[index][0]
    if kept.place.file == request.place.file:
        session.append((request, finding))
    elif _figures(request) > _figures(kept):
        session[index] = (request, finding)


def audit_sessions(
    files: Iterable[Found],
    problems: Problems,
    table: PriceTable,
    filters: Filters = Filters(),
    on_file: Callable[[Found], None] | None = None,
) -> list[SessionAudit]:
    held: dict[tuple[str, str], list[Held]] = {}
    named: dict[tuple[str, str, str], int] = {}  # (source, session, request id): where held
    savings: dict[tuple[str, str], list[Saving]] = {}
    for found in files:
        if on_file is not None:
            on_file(found)
        read = _file_requests(found, problems, filters)
        for request, finding in _with_findings(read, problems, table, savings):
            _hold(held, named, request, finding)
    audits = []
    for (source, session), pairs in held.items():
        ordered = [pairs[n] for n in in_order([request for request, _ in pairs])]
        requests = [request for request, _ in ordered]
        findings = {i: f for i, (_, f) in enumerate(ordered) if f is not None}
        steps = tuple(session_timeline(requests, findings))
        audits.append(
            SessionAudit(source, session, steps, tuple(savings.get((source, session), ())))
        )
    audits.sort(key=lambda a: (a.started is None, a.started or datetime.min, a.source, a.session))
    return audits
