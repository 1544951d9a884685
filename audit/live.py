"""The audit of a proxy's record as it grows: each exchange line, as the proxy writes it, read
as the record's reader reads it (readers/proxy_record.py), and added to its session, whose new
step alone is made (bytes_evidence.py's `BodiesPlayed`, timeline.py's `Timeline`), so that the
proxy's console line can say what the request lost and why, and what the simulator reads of the
same bodies beside what the provider read; the audit's page rewritten after each exchange (at
most once a second), and the audit's console summary of the run at its end.

It has the shape of the proxy's `Watcher` (started, exchange, ended) without importing the
proxy: the command wires the two, and runs it in a process of its own, never on the proxy's
event loop (proxy/apart.py). Bodies are bounded: a body is played as it comes and only its
reading kept, of at most `MAX_BODIES` requests per session and API shape, and none older than
its provider's longest lifetime before the newest (a body past it can no longer be read by a
later request); the figures of every request are kept.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from ctxconf.cache import PriceTable, bundled_prices
from ctxconf.userfiles.atomic import OutputError, write_text_atomic

from .bytes_evidence import BodiesPlayed, Clock, read_body
from .console import print_console
from .page import render_page
from .provider_rules import longest_lifetime, provider_of, step_tokens
from .readers.proxy_record import Run, exchange_request, session_of, unfinished
from .record import AuditRequest, Place, Problem
from .results import results
from .sessions import SessionAudit
from .summary import summarize
from .timeline import Step, Timeline

MAX_BODIES = 32  # per session and API shape: the most bodies kept to play the next against
REFRESH_SECONDS = 5  # how often the live page reloads itself
# The page is drawn at most this often (a burst of exchanges is one drawing), and the last
# change always drawn: a drawing holds every session's figures, so it costs as the run grows.
PAGE_EVERY_SECONDS = 1.0
# The simulator's share of a prompt read and the provider's part only past this.
SHARE_SLACK = 0.05


class _Session:
    """One session of the record as it grows: its clock, its bodies in play per API shape and
    its timeline, each taking the new request alone, so that an exchange costs what its own
    request does however long the session has run."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.bodies: dict[str, BodiesPlayed] = {}
        self.timeline = Timeline()
        self.steps: list[Step] = []

    def add(self, request: AuditRequest) -> Step:
        """The request's step in the session's timeline."""
        index = len(self.steps)
        at = self.clock.at(request.time)
        finding = None
        if request.body is not None and request.shape is not None:
            bodies = self.bodies.get(request.shape)
            if bodies is None:
                bodies = self.bodies[request.shape] = BodiesPlayed(request.shape)
            finding = bodies.add(index, read_body(request, index, at))
            _let_go(bodies, longest_lifetime(provider_of(request)))
            request = dataclasses.replace(request, body=None)  # played: its figures are kept
        step = self.timeline.add(request, finding)
        self.steps.append(step)
        return step


def _let_go(bodies: BodiesPlayed, lifetime: float) -> None:
    """Let go of the bodies no later request can read from (older than the lifetime before the
    newest) and, past `MAX_BODIES`, of the older half at once: the rules are played again over
    what is kept, so that happens once every MAX_BODIES / 2 requests, not with each."""
    times = bodies.times
    recent = sum(1 for t in times if times[-1] - t <= lifetime)
    bodies.keep_last(recent if recent <= MAX_BODIES else MAX_BODIES // 2)


def _share(part: int, whole: int) -> str:
    return f"{part:,} of {whole:,} ({part / whole:.0%})" if whole else f"{part:,} of 0"


def simulator_words(step: Step) -> str:
    """What the simulator reads of the bodies beside what the provider read, where they part
    (in shares of each one's input: the simulator counts by the estimate, the provider by its
    tokenizer); empty where they agree or there are no bodies. A simulator that reads more
    read it from bodies identical within a lifetime: the provider's miss. A provider that reads
    more read what no body before it in the record holds (an entry written before the record
    began) or, where one does, what the simulator's rules wrongly would not."""
    finding, tokens = step.finding, step.request.tokens
    if finding is None or finding.simulated_read is None or not finding.simulated_input:
        return ""
    read, sent = tokens.read, tokens.total_input
    if read is None or not sent:
        return ""
    simulated = f"the simulator reads {_share(finding.simulated_read, finding.simulated_input)}"
    provider = f"the provider {_share(read, sent)}"
    apart = finding.simulated_read / finding.simulated_input - read / sent
    rounding = step_tokens(provider_of(step.request))
    if abs(apart) <= SHARE_SLACK or abs(finding.simulated_read - read) < rounding:
        return ""
    if apart > 0:
        identical = "the bodies are identical within a lifetime"
        return f"provider-side miss: {identical}; {simulated}, {provider}"
    if finding.against is None:
        return f"an entry older than the record: {simulated}, {provider}"
    return f"the simulator's error (or an entry older than the record): {simulated}, {provider}"


def step_words(step: Step) -> str:
    """The console's words for a request: what it lost and why, the simulator's figure where it
    parts from the provider's, and the provider's own verdict where its answer gave one."""
    if step.request.tokens.read is None:
        return "no cache figures"
    if step.lost > 0 and step.cause is not None:
        cause = step.cause
        rule = f" {cause.anchor}" if cause.anchor else ""
        said = f"lost {step.lost:,}: {cause.kind} [{cause.basis}]{rule}"
    else:
        said = "lost 0"
    simulator = simulator_words(step)
    if simulator:
        said = f"{said}; {simulator}"
    independent = step.cause is None or step.cause.basis != "provider"
    if step.verdict is not None and step.verdict.conclusive and independent:
        agrees = {True: ": agrees", False: ": disagrees", None: ""}[step.agrees]
        said = f"{said}; the provider says {step.verdict.reason}{agrees}"
    return said


class LiveAudit:
    """The audit's live view of one proxy run; `page` the page rewritten after each exchange, at
    most once every `page_every` seconds (None: no page)."""

    def __init__(
        self,
        page: Path | None,
        prices: PriceTable | None = None,
        page_every: float = PAGE_EVERY_SECONDS,
    ) -> None:
        self.page = page
        self.prices = prices if prices is not None else bundled_prices()
        self.page_every = page_every
        self.run: Run | None = None
        self.sessions: dict[str, _Session] = {}
        self.problems: list[Problem] = []
        self._line = 1  # the record's run line
        # The page is drawn by the exchange that changed it or, within `page_every` of the last
        # drawing, by a timer; the lock keeps the two from drawing a session being changed.
        self._lock = threading.Lock()
        self._drawn_at = -math.inf
        self._timer: threading.Timer | None = None
        self._page_error: str | None = None

    def started(self, record: Path) -> None:
        self.run = Run(record)

    def exchange(self, line: Mapping[str, Any]) -> str:
        with self._lock:
            words = self._exchange(line)
            self._page_changed()
            failed, self._page_error = self._page_error, None
        if failed:
            words = f"{words}; [{failed}]" if words else f"[{failed}]"
        return words

    def _exchange(self, line: Mapping[str, Any]) -> str:
        self._line += 1
        run = self.run
        if run is None:
            return ""
        place = Place(run.path, self._line)
        why = unfinished(line)
        if why is not None:
            self.problems.append(Problem(place, why))
            return ""
        request = exchange_request(line, place, run)
        if request is None:
            return ""
        step = self.sessions.setdefault(session_of(line, run), _Session()).add(request)
        return step_words(step)

    def document(self) -> dict[str, Any]:
        """The audit's results document of the run so far."""
        audits = [
            SessionAudit(session.steps[0].request.source, name, tuple(session.steps))
            for name, session in self.sessions.items()
            if session.steps
        ]
        paths = [str(self.run.path)] if self.run is not None else []
        return results(summarize(audits, self.prices), paths, self.problems, "bundled")

    def _page_changed(self) -> None:
        """Draw the page now, or have the timer draw it once `page_every` has passed since the
        last drawing (held: the lock)."""
        if self.page is None or self._timer is not None:
            return
        wait = self._drawn_at + self.page_every - time.monotonic()
        if wait <= 0:
            self._draw()
            return
        self._timer = threading.Timer(wait, self._draw_late)
        self._timer.daemon = True
        self._timer.start()

    def _draw_late(self) -> None:
        with self._lock:
            if self._timer is None:  # the run ended first: its last drawing is made
                return
            self._timer = None
            try:
                self._draw()
            except Exception as e:  # no thread's traceback on the console: said as a failed write
                self._page_error = f"the live page failed: {type(e).__name__}: {e}"

    def _draw(self) -> None:
        """The page written; a page that cannot be is said with the next exchange's words, and
        the view goes on."""
        if self.page is None:
            return
        try:
            write_text_atomic(self.page, render_page(self.document(), refresh=REFRESH_SECONDS))
        except (OSError, OutputError) as e:
            self._page_error = f"the live page could not be written: {e}"
        self._drawn_at = time.monotonic()

    def ended(self, out: TextIO) -> None:
        """The audit's console summary of the run; the page written once more, without its
        reload."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            document = self.document()
        if self.page is not None:
            write_text_atomic(self.page, render_page(document))
        out.write("\n")
        print_console(document, out)


__all__ = ["MAX_BODIES", "LiveAudit", "simulator_words", "step_words"]
