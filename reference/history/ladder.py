"""The compaction ladder: the protected tail, the four rungs, and the one entry a run appends.

Every rung works on the live request before the protected tail and is run only when it reclaims
tokens; a run stops as soon as the request is at or under its target.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from .config import HistoryConfig
from .entries import (
    Assistant,
    Compaction,
    Entry,
    Result,
    Snapshot,
    Summary,
    User,
    counted,
)
from .request import (
    Block,
    RequestView,
    effects_of,
    elided_text,
    newest_cut,
    snapshot_source,
    tokens,
    view_of,
)

ELIDE, IMAGES, SNAPSHOT, SUMMARY = "elide", "images", "snapshot", "summary"
RUNGS = (ELIDE, IMAGES, SNAPSHOT, SUMMARY)
FREE_RUNGS = (ELIDE, IMAGES, SNAPSHOT)
SHAKE_RUNGS = (ELIDE, IMAGES)
# Why a run stopped before its summary rung.
OVERFLOW_STOP, SUMMARY_MISSING = "overflow", "no summary"


def kept_from(messages: Sequence[Block], budget: int) -> int:
    """Where the kept part of `messages` starts: the newest messages that fit in `budget`,
    then forward to a person's message; the newest person's message when none is at or after."""
    candidate = len(messages)
    total = 0
    # rule: hist.trim.newest
    for index in range(len(messages) - 1, -1, -1):
        total += messages[index].tokens
        if total > budget:
            break
        candidate = index
    # rule: hist.trim.forward
    # rule: hist.trim.no-orphan
    # rule: hist.trim.starts-with-user
    # rule: hist.compact.clean-cut
    for index in range(candidate, len(messages)):
        if messages[index].kind == "user":
            return index
    users = [index for index, block in enumerate(messages) if block.kind == "user"]
    # The current turn is kept even over the budget; with no person's message, everything.
    return users[-1] if users else 0


@dataclass(frozen=True)
class Plan:
    """The compaction entry a run is building, and the path it will be appended to."""

    path: tuple[Entry, ...]
    id: str
    elided: tuple[str, ...] = ()
    pruned: tuple[tuple[str, int], ...] = ()
    snapshot: Snapshot | None = None
    summary: Summary | None = None
    known: dict[str, Block] | None = field(default=None, compare=False)  # see messages_view

    @property
    def empty(self) -> bool:
        return not (self.elided or self.pruned or self.snapshot or self.summary)

    def entry(self) -> Compaction:
        parent = self.path[-1].id if self.path else None
        return Compaction(self.id, parent, self.elided, self.pruned, self.snapshot, self.summary)

    def view(self, config: HistoryConfig) -> RequestView:
        path = self.path if self.empty else (*self.path, self.entry())
        return view_of(path, config, self.known)


@dataclass(frozen=True)
class Start:
    """The live request when the run starts, and its part before the protected tail."""

    view: RequestView
    tail: int  # the index of the tail's first message in the view's body

    @property
    def before_tail(self) -> list[Block]:
        """Every message before the tail: a snapshot's head, then the body's."""
        return [block for block in self.view.front if block.entry] + self.view.body[: self.tail]

    @property
    def has_cut(self) -> bool:
        """Whether the tail starts at a message (it does when the body has a person's one)."""
        return self.tail < len(self.view.body)


def _elide(plan: Plan, start: Start, config: HistoryConfig, minimum: int) -> tuple[Plan, int]:
    done = effects_of(plan.path).elided
    chosen: list[str] = []
    for block in start.before_tail:
        entry = block.entry
        # rule: hist.elide.flagged
        if not isinstance(entry, Result) or not entry.uneventful or entry.error:
            continue
        placeholder = tokens(elided_text(entry, config), config.chars_per_token)
        if entry.id not in done and tokens(entry.text, config.chars_per_token) > placeholder:
            chosen.append(entry.id)
    new = replace(plan, elided=plan.elided + tuple(chosen))
    reclaimed = plan.view(config).tokens - new.view(config).tokens
    # rule: hist.elide.batched
    if not chosen or reclaimed <= 0 or reclaimed < minimum:
        return plan, 0
    return new, len(chosen)


def _images(plan: Plan, start: Start, config: HistoryConfig) -> tuple[Plan, int]:
    done = effects_of(plan.path).pruned

    def images(blocks: Sequence[Block]) -> list[tuple[str, int]]:
        found: list[tuple[str, int]] = []
        for block in blocks:
            entry = block.entry
            if isinstance(entry, User | Result):
                found += [(entry.id, index) for index in range(len(entry.images))]
        return [image for image in found if image not in done]

    keep = config.ladder.images_keep
    # rule: hist.images.all
    newest = set(images(start.view.messages)[-keep:]) if keep > 0 else set()
    chosen = [image for image in images(start.before_tail) if image not in newest]
    return replace(plan, pruned=plan.pruned + tuple(chosen)), len(chosen)


def _snapshot(plan: Plan, start: Start, config: HistoryConfig) -> tuple[Plan, int]:
    body = start.view.body
    previous = newest_cut(plan.path)
    if not start.has_cut:
        return plan, 0
    if isinstance(previous, Compaction) and previous.summary is not None:
        return plan, 0  # a snapshot never replaces a summary: the summary rung chains it
    if isinstance(previous, Compaction) and previous.snapshot is not None:
        # rule: hist.snapshot.from-source
        head_id = previous.snapshot.head
        source = previous.snapshot.source + _ids(body[: start.tail])
        if start.tail < 1:
            return plan, 0
    else:
        if start.tail < 2 or body[0].entry is None or body[0].kind != "user":
            return plan, 0
        head_id = body[0].entry.id
        source = _ids(body[1 : start.tail])
    cut = body[start.tail].entry
    assert cut is not None
    draft = Snapshot(head_id, source, cut.id, 0)
    chars = len(snapshot_source(plan.path, draft, config))
    kinds = {entry.id: entry.kind for entry in plan.path}
    return replace(plan, snapshot=replace(draft, chars=chars)), counted(kinds[i] for i in source)


def _ids(blocks: Sequence[Block]) -> tuple[str, ...]:
    return tuple(block.entry.id for block in blocks if block.entry is not None)


def read_paths(path: Sequence[Entry], cut: str) -> tuple[str, ...]:
    """The distinct paths read (tool `read`, not an error) on `path` before `cut`, in order."""
    before: list[Entry] = []
    for entry in path:
        if entry.id == cut:
            break
        before.append(entry)
    failed = {e.call for e in before if isinstance(e, Result) and e.error}
    answered = {e.call for e in before if isinstance(e, Result)}
    found: dict[str, None] = {}
    for entry in before:
        if isinstance(entry, Assistant):
            for call in entry.calls:
                args = call.args
                if call.tool != "read" or call.call in failed or call.call not in answered:
                    continue
                if isinstance(args, dict) and isinstance(args.get("path"), str):
                    found.setdefault(args["path"], None)
    return tuple(found)


def _summary(plan: Plan, start: Start, text: str) -> tuple[Plan, int]:
    if not _summarisable(start):
        return plan, 0
    cut = start.view.body[start.tail].entry
    assert cut is not None
    previous = newest_cut(plan.path)
    chained = (
        previous.id if isinstance(previous, Compaction) and previous.summary is not None else None
    )
    # The files of the whole path before the cut, those of an unsent or summarised part too.
    # rule: hist.summary.files-whole-path
    summary = Summary(text, cut.id, chained, read_paths(plan.path, cut.id))
    # The messages it stands for: those before the tail, and those an earlier snapshot paged.
    paged = (
        previous.snapshot.source if isinstance(previous, Compaction) and previous.snapshot else ()
    )
    kinds = {entry.id: entry.kind for entry in plan.path}
    taken = counted(block.kind for block in start.before_tail) + counted(kinds[i] for i in paged)
    return replace(plan, summary=summary), taken


def _summarisable(start: Start) -> bool:
    """Whether anything is before the tail: messages, or a summary or snapshot to chain."""
    folded = any(block.kind in ("summary", "snapshot") for block in start.view.front)
    return start.has_cut and (start.tail >= 1 or folded)


@dataclass(frozen=True)
class Run:
    """What a ladder run did: its entry (None: nothing), its report lines, the request sizes."""

    entry: Compaction | None
    lines: tuple[str, ...]
    before: int
    after: int
    stopped: str | None = None  # why the summary rung did not run: OVERFLOW_STOP, SUMMARY_MISSING


def start_of(
    path: Sequence[Entry],
    config: HistoryConfig,
    budget: int,
    known: dict[str, Block] | None = None,
) -> Start:
    view = view_of(path, config, known)
    # rule: hist.compact.clean-cut
    return Start(view, kept_from(view.body, budget))


def run_ladder(
    path: Sequence[Entry],
    config: HistoryConfig,
    *,
    entry_id: str,
    rungs: Sequence[str],
    budget: int,
    elide_min: int,
    target: int | None,
    vision: bool,
    summary: str | None = None,
    rejected: int | None = None,
    known: dict[str, Block] | None = None,
) -> Run:
    """Run `rungs` in order over `path`'s live request, stopping at `target`; with `rejected`
    (an overflow), the summary rung runs only if its request would be smaller than that."""
    t = config.texts
    plan = Plan(tuple(path), entry_id, known=known)
    start = start_of(path, config, budget, known)
    before = current = start.view.tokens
    lines: list[str] = []
    stopped: str | None = None
    # rule: hist.ladder.order
    for rung in rungs:
        if target is not None and current <= target:
            break
        if rung == ELIDE:
            new, count = _elide(plan, start, config, elide_min)
        elif rung == IMAGES:
            new, count = _images(plan, start, config)
        elif rung == SNAPSHOT:
            if not vision:
                # rule: hist.snapshot.vision
                continue
            new, count = _snapshot(plan, start, config)
        else:
            if not _summarisable(start):
                continue
            request = tokens(config.compact_request, config.chars_per_token)
            # rule: hist.compact.overflow
            if rejected is not None and current + request >= rejected:
                stopped = OVERFLOW_STOP
                break
            if summary is None:
                stopped = SUMMARY_MISSING
                break
            new, count = _summary(plan, start, summary)
        after = new.view(config).tokens
        if count == 0 or after >= current:
            continue  # a rung that reclaims nothing is not run
        reclaimed = current - after
        if rung == ELIDE:
            lines.append(t.render("elided_line", count=count, tokens=reclaimed))
        elif rung == IMAGES:
            lines.append(t.render("pruned_line", count=count, tokens=reclaimed))
        elif rung == SNAPSHOT:
            assert new.snapshot is not None
            pages = -(-new.snapshot.chars // config.ladder.page_chars)
            lines.append(t.render("snapshot_line", messages=count, pages=pages, tokens=reclaimed))
        else:
            assert new.summary is not None
            previous = new.summary.previous
            chained = "" if previous is None else t.render("summary_previous", id=previous)
            lines.append(
                t.render("summary_line", messages=count, previous=chained, tokens=reclaimed)
            )
        plan, current = new, after
    if stopped == OVERFLOW_STOP:
        lines.append(t.render("overflow_stop"))
    elif stopped == SUMMARY_MISSING:
        lines.append(t.render("summary_missing"))
    if plan.empty:
        return Run(None, tuple(lines), before, before, stopped)
    # What the rungs before a stop did is kept, so the request line follows the stop's.
    # rule: hist.ladder.stop-then-request
    lines.append(t.render("request_change", before=before, after=current))
    return Run(plan.entry(), tuple(lines), before, current, stopped)


def next_rung(path: Sequence[Entry], config: HistoryConfig, vision: bool) -> str | None:
    """The first rung a compaction would run now, whatever the request's size; None: none."""
    for rung in RUNGS:
        if rung == SUMMARY:
            if _summarisable(start_of(path, config, config.ladder.keep_tokens)):
                return SUMMARY
            continue
        run = run_ladder(
            path,
            config,
            entry_id="",
            rungs=(rung,),
            budget=config.ladder.keep_tokens,
            elide_min=config.ladder.elide_min_tokens,
            target=None,
            vision=vision,
        )
        if run.entry is not None:
            return rung
    return None
