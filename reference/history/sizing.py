"""The steps that size the request between turns: trim, the ladder's runs, the commands."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction

from .core import HistoryStepError, SessionCore
from .entries import Compaction, Trim, User, counted
from .ladder import (
    RUNGS,
    SHAKE_RUNGS,
    SUMMARY,
    SUMMARY_MISSING,
    Run,
    kept_from,
    next_rung,
    run_ladder,
)
from .store import entry_record


class SizeSteps(SessionCore):
    """Trim, compact, overflow and the slash commands."""

    def trim(self, entry_id: str, budget: int) -> str:
        """Cut the request to the newest messages that fit in `budget`, at a person's message."""
        self._live()
        self._new_id(entry_id)
        t = self._t
        if self._turn_open:
            return t.render("busy")
        messages = self.request_view().messages
        start = kept_from(messages, budget)
        if start == 0 or not messages:
            return t.render("trim_nothing")
        cut = messages[start].entry
        assert cut is not None
        # rule: hist.trim.recorded
        self._write([entry_record(self.state.current, Trim(entry_id, self._tip, cut.id))])
        kept = sum(block.tokens for block in messages[start:])
        count = counted(block.kind for block in messages[:start])
        return t.render("trim_done", count=count, tokens=kept)

    @property
    def target(self) -> int:
        """The tokens a compaction aims at or under."""
        return int(Fraction(self.window) * self.config.ladder.target)

    def _run_ladder(
        self, entry_id: str, summary: str | None, rungs: Sequence[str], rejected: int | None = None
    ) -> Run:
        """`rungs` in order, down to the target, over the tail `ladder.keep_tokens` keeps;
        `rejected`: the size of the request an overflow refused."""
        ladder = self.config.ladder
        return run_ladder(
            self._path(),
            self.config,
            entry_id=entry_id,
            rungs=rungs,
            budget=ladder.keep_tokens,
            elide_min=ladder.elide_min_tokens,
            target=self.target,
            vision=self.vision,
            summary=summary,
            rejected=rejected,
            known=self.state.conversation.known_blocks(self.config),
        )

    def compact(self, entry_id: str, summary: str | None = None) -> str:
        """A compaction the harness decided on: the rungs in order, down to the target."""
        self._live()
        self._new_id(entry_id)
        if self._turn_open:
            return self._t.render("busy")
        run = self._run_ladder(entry_id, summary, RUNGS)
        if run.entry is None and run.stopped == SUMMARY_MISSING:
            return self._t.render("summary_missing")
        return self._finish(run.entry, run.lines, self._t.render("compact_nothing"))

    def overflow(self, entry_id: str, summary: str | None = None) -> str:
        """The provider rejected the last request: one reactive compaction, never a resend of
        the same request."""
        self._live()
        self._new_id(entry_id)
        if self._reactive_since_the_person():
            return self._t.render("overflow_stop")
        run = self._run_ladder(entry_id, summary, RUNGS, rejected=self.request_view().tokens)
        if run.entry is None:
            return self._t.render("overflow_stop")
        return self._finish(replace(run.entry, reactive=True), run.lines, "")

    def _reactive_since_the_person(self) -> bool:
        """Whether an overflow's compaction came after the person's last message on the path: read
        from the entries, so a loaded session knows it as the live one did."""
        for entry in reversed(self._path()):
            if isinstance(entry, User):
                return False
            if isinstance(entry, Compaction) and entry.reactive:
                return True
        return False

    def command(self, text: str, entry_id: str | None = None, summary: str | None = None) -> str:
        """A slash command of the person's: /shake, /compact, /context, /tree."""
        self._live()
        t = self._t
        words = text.split()
        name = words[0] if words else text
        if entry_id is not None:
            self._new_id(entry_id)
        if name in ("/shake", "/compact"):
            if entry_id is None:
                raise HistoryStepError("hist-command-id", f"{name} needs an id")
            if self._turn_open:
                return t.render("busy")
            ladder = self.config.ladder
            shake = name == "/shake"
            # rule: hist.command.shake
            run = run_ladder(
                self._path(),
                self.config,
                entry_id=entry_id,
                rungs=SHAKE_RUNGS if shake else (SUMMARY,),
                budget=ladder.shake_keep_tokens if shake else ladder.keep_tokens,
                elide_min=0 if shake else ladder.elide_min_tokens,
                target=None,
                vision=self.vision,
                summary=summary,
                known=self.state.conversation.known_blocks(self.config),
            )
            if shake:
                nothing = t.render("shake_nothing")
            elif run.stopped == SUMMARY_MISSING:
                nothing = t.render("summary_missing")
            else:
                nothing = t.render("compact_nothing")
            return self._finish(run.entry, run.lines, nothing)
        if name == "/context":
            return self._context()
        if name == "/tree":
            return self.tree()
        return t.render("unknown_command", command=name)

    def _finish(self, entry: Compaction | None, lines: Sequence[str], nothing: str) -> str:
        """Append a ladder run's entry (with the open turn, or written now) and report it;
        `nothing` when it did nothing."""
        if entry is None:
            return nothing
        if self._turn_open:
            self._append(entry)
        else:
            self._write([entry_record(self.state.current, entry)])
        return "\n".join(lines)

    def _context(self) -> str:
        # rule: hist.command.context
        view = self.request_view()
        image_tokens = self.config.image_tokens
        by_kind = {"user": 0, "assistant": 0, "result": 0, "images": 0, "front": 0, "marks": 0}
        for block in view.blocks:
            text = block.tokens - block.images * image_tokens
            if block.kind in ("user", "assistant", "result"):
                by_kind[block.kind] += text
                by_kind["images"] += block.images * image_tokens
            elif block.kind in ("summary", "snapshot"):
                by_kind["front"] += block.tokens
            else:
                by_kind["marks"] += block.tokens
        rung = next_rung(self._path(), self.config, self.vision)
        return self._t.render(
            "context",
            window=self.window,
            tokens=view.tokens,
            user=by_kind["user"],
            assistant=by_kind["assistant"],
            results=by_kind["result"],
            images=by_kind["images"],
            summaries=by_kind["front"],
            markers=by_kind["marks"],
            rung=rung if rung is not None else self._t.render("rung_none"),
        )
