"""A context-hygiene session: the text each tool result inserts, and what the session keeps.

One `Session` per conversation. Each method takes what a tool call did and returns the exact
text to insert into the model's context; nothing it returned earlier ever changes. The session
stores every result in full for `recall`, knows which earlier results the request being built
carries (what a stub may name), and which full reads the next compaction summary covers.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .cap import cap_text
from .config import ContextConfig, Limits
from .diff import unified_diff
from .lines import LineIndex, content_sha, count_lines, line_window

DEFAULT_CWD = "/project"
# What a recall target loses around it (U+0009 to U+000D, U+0020) and which letters are lowered:
# exactly these, not a language's own idea of white space and case (ctx.recall.target-folded).
_TARGET_SPACE = "\t\n\v\f\r "
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@dataclass(frozen=True)
class PatchFile:
    """One file of an `apply_patch`: no `before` creates it, no `after` deletes it."""

    path: str
    before: str | None = None
    after: str | None = None


@dataclass(frozen=True)
class _FullRead:
    id: str
    path: str
    first: int
    last: int
    total: int
    sha: str

    def holds(self, first: int, last: int) -> bool:
        # rule: ctx.stub.range
        return self.first <= first and last <= self.last


@dataclass(frozen=True)
class _Listing:
    text: str
    full_id: str  # the full result a repeat names: a stub never names a stub


class Session:
    """The context-hygiene state of one conversation.

    `config` defaults to the bundled `loop.json`; `limits` overrides some or all of its `cap`;
    relative paths are resolved against `cwd` to decide which file a path names.
    """

    def __init__(
        self,
        config: ContextConfig | None = None,
        *,
        limits: Limits | Mapping[str, int] | None = None,
        cwd: str = DEFAULT_CWD,
    ) -> None:
        self.config = config if config is not None else ContextConfig.load()
        if isinstance(limits, Limits):
            self.limits = limits
        else:
            self.limits = self.config.cap.merged(limits)
        self.cwd = cwd
        self._texts = self.config.texts
        self._count = 0
        self._stored: dict[str, str] = {}
        self._indexes: dict[str, LineIndex] = {}  # line starts of recalled results
        # What the request being built carries: emptied by a reply and by compaction.
        self._stub_targets: dict[str, list[_FullRead]] = {}
        self._listings: dict[tuple[str, Any], _Listing] = {}
        # The full reads the next compaction summary covers, newest last: emptied by compaction.
        self._covered: dict[str, _FullRead] = {}

    # -- results ---------------------------------------------------------------------------

    def read(
        self,
        path: str,
        content: str,
        *,
        offset: int | None = None,
        limit: int | None = None,
        id: str | None = None,
    ) -> str:
        """A read of `path`, whose whole content is `content`, from line `offset` (1-based)."""
        rid = self._new_id(id)
        key = self.identity(path)
        sha = content_sha(content)
        short = self._short(sha)
        total = count_lines(content)
        targets = self._stub_targets.get(key)
        if targets and targets[-1].sha != sha:
            # rule: ctx.stub.changed
            # rule: ctx.stub.changed-back
            del self._stub_targets[key]
            targets = None
        first = 1 if offset is None else offset
        # rule: ctx.read.limit-lowered
        # rule: ctx.read.window
        window = self.config.read_window if limit is None else min(limit, self.config.read_window)
        if first < 1 or window < 1:
            raise ValueError("a read's offset and limit start at 1")
        t = self._texts
        # rule: ctx.read.empty
        # rule: ctx.read.empty-any-offset
        if total == 0:
            bracket = t.render("read_empty_bracket", id=rid, path=path, sha=short)
            # rule: ctx.compact.empty-file
            return self._insert(rid, bracket, block=t.render("read_empty"))
        # rule: ctx.read.past-end
        if first > total:
            bracket = t.render("file_bracket", id=rid, path=path, sha=short)
            sentence = t.render("read_past_end", offset=first, total=total)
            return self._insert(rid, bracket, sentence=sentence)
        last = min(total, first + window - 1)
        # rule: ctx.read.bracket
        bracket = t.render(
            "read_bracket", id=rid, path=path, first=first, last=last, total=total, sha=short
        )
        # rule: ctx.read.numbered
        # rule: ctx.text.cr-shown
        shown = "\n".join(
            t.render("read_line", number=number, text=line)
            for number, line in enumerate(line_window(content, first, last), start=first)
        )
        # rule: ctx.stub.newest
        for earlier in reversed(targets or []):
            if earlier.holds(first, last):
                # rule: ctx.stub.unchanged
                sentence = t.render(
                    "read_stub", target=earlier.id, first=earlier.first, last=earlier.last
                )
                # rule: ctx.compact.covers
                # rule: ctx.stub.full-only
                return self._insert(rid, bracket, sentence=sentence, stored=shown)
        read = _FullRead(rid, path, first, last, total, sha)
        self._stub_targets.setdefault(key, []).append(read)
        # rule: ctx.compact.rows
        self._covered.pop(key, None)
        self._covered[key] = read
        block = shown
        if last < total:
            # rule: ctx.read.more
            more = t.render("read_more", remaining=total - last, next=last + 1)
            block = f"{shown}\n\n{more}"
        # rule: ctx.cap.scope
        # rule: ctx.store.read-note
        return self._insert(rid, bracket, block=block, stored=shown)

    def edit(
        self, path: str, before: str, after: str, *, note: str | None = None, id: str | None = None
    ) -> str:
        """An edit of an existing file, answered with the diff from `before` to `after`."""
        return self._change(PatchFile(path, before, after), note, id)

    def multiedit(
        self, path: str, before: str, after: str, *, note: str | None = None, id: str | None = None
    ) -> str:
        """Several edits of one file in one call: one diff of the file before and after them all."""
        # rule: ctx.edit.multiedit
        return self._change(PatchFile(path, before, after), note, id)

    def write(
        self,
        path: str,
        after: str,
        *,
        before: str | None = None,
        note: str | None = None,
        id: str | None = None,
    ) -> str:
        """A write of a whole file: `Created` when there was none (no `before`), else a diff."""
        return self._change(PatchFile(path, before, after), note, id)

    def delete(self, path: str, *, note: str | None = None, id: str | None = None) -> str:
        return self._change(PatchFile(path, None, None), note, id)

    def apply_patch(
        self, files: Sequence[PatchFile], *, note: str | None = None, id: str | None = None
    ) -> str:
        """A patch: one file answers as its edit would; several answer file by file, in order."""
        if not files:
            raise ValueError("a patch changes at least one file")
        # rule: ctx.edit.patch
        if len(files) == 1:
            return self._change(files[0], note, id)
        rid = self._new_id(id)
        sections = []
        # rule: ctx.edit.patch
        for file in files:
            self._forget_reads(file.path)
            bracket, sentence, block = self._describe_change(file, rid, in_patch=True)
            sections.append(_join(bracket, sentence, block))
        body = "\n".join(sections)
        bracket = self._texts.render("bracket", id=rid)
        # rule: ctx.edit.capped
        return self._insert(rid, bracket, block=body, capped=True, note=note)

    def output(
        self, tool: str, args: Mapping[str, Any], text: str, *, id: str | None = None
    ) -> str:
        """Any other tool's result; a repeated listing or search with the same result is a stub."""
        rid = self._new_id(id)
        bracket = self._texts.render("bracket", id=rid)
        # rule: ctx.same.tools
        if tool not in self.config.dedupe_by_result:
            return self._output(rid, bracket, text)
        # rule: ctx.same.args
        # rule: ctx.same.args-any-order
        key = (tool, _canonical(args))
        earlier = self._listings.get(key)
        # rule: ctx.same.result
        if earlier is not None and earlier.text == text:
            sentence = self._texts.render("same_result", target=earlier.full_id)
            return self._insert(rid, bracket, sentence=sentence, stored=text)
        # Only the latest result of the call counts: one from before a change is no target.
        # rule: ctx.same.changed
        # rule: ctx.same.changed-back
        self._listings[key] = _Listing(text, rid)
        return self._output(rid, bracket, text)

    def recall(
        self,
        target: str,
        *,
        offset: int | None = None,
        limit: int | None = None,
        id: str | None = None,
    ) -> str:
        """A stored result again, in full, `limit` lines (at most the window) from `offset`."""
        rid = self._new_id(id)
        # rule: ctx.recall.target-folded
        wanted = _folded_target(target)
        # rule: ctx.recall.id-form
        wanted = wanted if wanted.startswith("#") else "#" + wanted
        t = self._texts
        stored = self._stored.get(wanted)
        if stored is None:
            bracket = t.render("bracket", id=rid)
            # rule: ctx.recall.unknown
            return self._insert(rid, bracket, sentence=t.render("recall_unknown", target=wanted))
        first = 1 if offset is None else offset
        window = self.config.recall_window
        if limit is not None:
            window = min(limit, window)
        if first < 1 or window < 1:
            raise ValueError("a recall's offset and limit start at 1")
        index = self._line_index(wanted, stored)
        # rule: ctx.recall.past-end
        # rule: ctx.recall.past-end
        total = index.total
        if first > total:
            bracket = t.render("recall_past_end_bracket", id=rid, target=wanted)
            sentence = t.render("recall_past_end", offset=first, total=total)
            return self._insert(rid, bracket, sentence=sentence)
        last = min(total, first + window - 1)
        bracket = t.render(
            "recall_bracket", id=rid, target=wanted, first=first, last=last, total=total
        )
        # The bracket's "of {total}" tells what lies beyond: a recall adds no note of its own.
        # rule: ctx.recall.plain
        # rule: ctx.recall.window
        return self._insert(rid, bracket, block=index.window(first, last))

    def compact(self) -> str:
        """The table added after a compaction summary ("" with no reads); forgets what was sent."""
        # rule: ctx.compact.rows
        covered = list(self._covered.values())[-self.config.compaction_rows :]
        # rule: ctx.compact.forget
        self._covered.clear()
        self.reply()
        # rule: ctx.compact.none
        if not covered:
            return ""
        t = self._texts
        # rule: ctx.compact.escape
        rows = [
            t.render(
                "compaction_row",
                path=read.path.replace("|", "\\|"),
                first=read.first,
                last=read.last,
                total=read.total,
                sha=self._short(read.sha),
                id=read.id,
            )
            for read in covered
        ]
        parts = [t.render("compaction_heading"), t.render("compaction_intro")]
        # rule: ctx.compact.table
        return "\n\n".join(parts) + "\n\n" + "\n".join([t.render("compaction_header"), *rows])

    def reply(self) -> str:
        """A new request that carries none of the results so far: no stub may name them."""
        # rule: ctx.same.request
        # rule: ctx.stub.request
        # rule: ctx.compact.covers
        self._stub_targets.clear()
        self._listings.clear()
        return ""

    # -- what the session keeps ------------------------------------------------------------

    def stored(self, result_id: str) -> str | None:
        """The full text stored for a result, as `recall` shows it."""
        return self._stored.get(result_id)

    def identity(self, path: str) -> str:
        """What names a file: its absolute path, `.`, `..` and repeated slashes folded, relative
        to `cwd`."""
        # normpath keeps a leading `//` (POSIX leaves its meaning open); here it is one `/`.
        # rule: ctx.stub.identity
        # rule: ctx.stub.path-normalised
        return "/" + posixpath.normpath(posixpath.join(self.cwd, path)).lstrip("/")

    # -- helpers ---------------------------------------------------------------------------

    def _new_id(self, given: str | None) -> str:
        # rule: ctx.id.given
        # rule: ctx.id.number
        self._count += 1
        if given is None:
            number = format(self._count, f"0{self.config.id_digits}x")
            given = self._texts.render("id", number=number)
        if given in self._stored:
            # Never reused: a second result under one id would hide the first from recall.
            raise ValueError(f"the id {given} is already taken in this session")
        return given

    def _line_index(self, result_id: str, stored: str) -> LineIndex:
        # Made at the first recall of a result and kept: later recalls of a long result count
        # line ends within one chunk instead of across the whole text.
        index = self._indexes.get(result_id)
        if index is None:
            index = self._indexes[result_id] = LineIndex(stored)
        return index

    def _short(self, sha: str) -> str:
        return sha[: self.config.sha_digits]

    def _insert(
        self,
        rid: str,
        bracket: str,
        *,
        sentence: str | None = None,
        block: str | None = None,
        stored: str | None = None,
        capped: bool = False,
        note: str | None = None,
    ) -> str:
        """Store the result in full and return its text: a sentence after the bracket, or a block
        below it, capped when `capped`; a tool's note follows the whole after a blank line."""
        # rule: ctx.store.full
        full = stored if stored is not None else (sentence if sentence is not None else block or "")
        if note:
            full = self._texts.render("with_note", text=full, note=note) if full else note
        self._stored[rid] = full
        if capped and block is not None:
            block = cap_text(block, self.limits, rid, self._texts)
        text = _join(bracket, sentence, block)
        if note:
            # rule: ctx.edit.note
            # rule: ctx.edit.note-blank-line
            text = self._texts.render("with_note", text=text, note=note)
        return text

    def _output(self, rid: str, bracket: str, text: str) -> str:
        # rule: ctx.output.empty
        if not text:
            # rule: ctx.output.empty
            return self._insert(rid, bracket, sentence=self._texts.render("no_output"), stored="")
        return self._insert(rid, bracket, block=text, capped=True)

    def _forget_reads(self, path: str) -> None:
        # The session changed the file: no earlier read of it may stand for it any more.
        # rule: ctx.stub.own-change
        # rule: ctx.stub.own-change-full
        self._stub_targets.pop(self.identity(path), None)

    def _change(self, file: PatchFile, note: str | None, given: str | None) -> str:
        rid = self._new_id(given)
        self._forget_reads(file.path)
        bracket, sentence, block = self._describe_change(file, rid, in_patch=False)
        # rule: ctx.edit.capped
        return self._insert(rid, bracket, sentence=sentence, block=block, capped=True, note=note)

    def _describe_change(
        self, file: PatchFile, rid: str, *, in_patch: bool
    ) -> tuple[str, str | None, str | None]:
        """The bracket of one changed file, and its sentence or its diff."""
        t = self._texts
        if file.after is None:
            if in_patch:
                return t.render("patch_deleted_bracket", path=file.path), None, None
            # rule: ctx.edit.deleted
            return t.render("deleted_bracket", id=rid, path=file.path), None, None
        sha = self._short(content_sha(file.after))
        if in_patch:
            bracket = t.render("patch_file_bracket", path=file.path, sha=sha)
        else:
            bracket = t.render("file_bracket", id=rid, path=file.path, sha=sha)
        if file.before is None:
            # rule: ctx.edit.created
            return bracket, t.render("created", lines=count_lines(file.after)), None
        # rule: ctx.edit.diff
        # rule: ctx.edit.max-edit
        diff = unified_diff(
            file.before, file.after, self.config.diff_context, t, self.config.diff_max_edit
        )
        # rule: ctx.edit.no-change
        if not diff:
            # rule: ctx.edit.no-change
            return bracket, t.render("no_change"), None
        return bracket, None, diff


def _canonical(value: Any) -> Any:
    """Arguments as JSON compares them, as a key: an object's members in any order, arrays in
    order, a number by the exact decimal it writes (a case's numbers with a fraction or an
    exponent are Decimals, so `12345678901234567890.0` is `12345678901234567890` while `1e16` is
    not `10000000000000001`; a float is taken at its exact value). Each value carries its JSON
    type, so no string is ever taken for a number."""
    # rule: ctx.same.args
    if isinstance(value, dict):
        # rule: ctx.same.args-any-order
        return ("object", tuple(sorted((key, _canonical(item)) for key, item in value.items())))
    if isinstance(value, list):
        return ("array", tuple(_canonical(item) for item in value))
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        # rule: ctx.same.args-number-value
        # rule: ctx.same.args-exact-decimal
        return ("number", Decimal(value))  # Decimals are equal, and hash alike, by exact value
    return (type(value).__name__, value)


def _folded_target(target: str) -> str:
    return target.strip(_TARGET_SPACE).translate(_ASCII_LOWER)


def _join(bracket: str, sentence: str | None, block: str | None) -> str:
    if sentence is not None:
        # rule: ctx.id.bracket
        return f"{bracket} {sentence}"
    if block is not None:
        return f"{bracket}\n{block}"
    return bracket


__all__ = ["DEFAULT_CWD", "PatchFile", "Session"]
