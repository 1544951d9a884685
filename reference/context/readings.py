"""The context area's decisions, each read the other way (see `..readings`).

Each `Reading` edits `context/session.py`; the Decisions table of spec/context.md says what the
other reading is.
"""

from __future__ import annotations

from ..readings import Reading

_SESSION = "context/session.py"


def _r(anchor: str, name: str, *edits: tuple[str, str]) -> Reading:
    return Reading(anchor, name, _SESSION, edits)


READINGS: tuple[Reading, ...] = (
    _r(
        "ctx.text.cr-shown",
        "cr-hidden",
        (
            't.render("read_line", number=number, text=line)',
            't.render("read_line", number=number, text=line.removesuffix("\\r")'
            ' if number < total or content.endswith("\\n") else line)',
        ),
    ),
    _r(
        "ctx.read.limit-lowered",
        "limit-as-given",
        ("else min(limit, self.config.read_window)", "else limit"),
    ),
    _r(
        "ctx.read.past-end",
        "past-end-as-empty-range",
        (
            '        if first > total:\n            bracket = t.render("file_bracket"',
            '        if first > total + 10**9:\n            bracket = t.render("file_bracket"',
        ),
    ),
    _r(
        "ctx.stub.changed-back",
        "stub-after-change-back",
        (
            "            del self._stub_targets[key]\n            targets = None",
            "            targets = [r for r in targets if r.sha == sha]",
        ),
    ),
    _r(
        "ctx.stub.own-change-full",
        "hash-alone-decides",
        ("self._stub_targets.pop(self.identity(path), None)", "None"),
    ),
    _r(
        "ctx.store.read-note",
        "stored-with-note",
        (
            "        return self._insert(rid, bracket, block=block, stored=shown)\n\n    def edit",
            "        return self._insert(rid, bracket, block=block)\n\n    def edit",
        ),
        # A stub stores its range as a full read would: with the note, under this reading.
        (
            "                # rule: ctx.stub.full-only\n",
            "                if last < total:\n"
            '                    more = t.render("read_more", remaining=total - last,'
            " next=last + 1)\n"
            '                    shown = f"{shown}\\n\\n{more}"\n',
        ),
    ),
    _r(
        "ctx.recall.target-folded",
        "target-as-written",
        ("wanted = _folded_target(target)", "wanted = target"),
    ),
    _r(
        "ctx.recall.past-end",
        "past-end-as-empty-range",
        (
            '        if first > total:\n            bracket = t.render("recall_past_end_bracket"',
            "        if first > total + 10**9:\n"
            '            bracket = t.render("recall_past_end_bracket"',
        ),
    ),
    _r(
        "ctx.edit.no-change",
        "empty-diff",
        (
            '            return bracket, t.render("no_change"), None',
            "            return bracket, None, None",
        ),
    ),
    _r(
        "ctx.edit.note-blank-line",
        "note-after-one-newline",
        (
            '            text = self._texts.render("with_note", text=text, note=note)',
            '            text = text + "\\n" + note',
        ),
    ),
    _r(
        "ctx.edit.max-edit",
        "myers-however-long",
        ("t, self.config.diff_max_edit", "t, 10**9"),
    ),
    _r(
        "ctx.compact.empty-file",
        "empty-file-row",
        (
            '            return self._insert(rid, bracket, block=t.render("read_empty"))',
            "            self._covered.pop(key, None)\n"
            "            self._covered[key] = _FullRead(rid, path, 0, 0, 0, sha)\n"
            '            return self._insert(rid, bracket, block=t.render("read_empty"))',
        ),
    ),
    _r(
        "ctx.compact.escape",
        "bar-as-it-is",
        ('path=read.path.replace("|", "\\\\|"),', "path=read.path,"),
    ),
    _r(
        "ctx.read.empty-any-offset",
        "empty-file-past-the-end",
        ("        if total == 0:\n", "        if total == 0 and first == 1:\n"),
    ),
    _r(
        "ctx.stub.path-normalised",
        "paths-as-written",
        (
            'return "/" + posixpath.normpath(posixpath.join(self.cwd, path)).lstrip("/")',
            "return path",
        ),
    ),
    _r(
        "ctx.output.empty",
        "bracket-alone",
        ('sentence=self._texts.render("no_output"), ', ""),
    ),
    _r(
        "ctx.same.args-any-order",
        "members-in-written-order",
        ("tuple(sorted((key, _canonical(item))", "tuple(((key, _canonical(item))"),
    ),
    _r(
        "ctx.same.args-number-value",
        "numbers-as-written",
        ('return ("number", Decimal(value))', 'return ("number", str(value))'),
    ),
    _r(
        "ctx.same.args-exact-decimal",
        "numbers-as-doubles",
        ('return ("number", Decimal(value))', 'return ("number", float(value))'),
    ),
    _r(
        "ctx.same.changed-back",
        "stub-after-change-back",
        (
            "        earlier = self._listings.get(key)\n",
            '        seen = self.__dict__.setdefault("_every_listing", {}).setdefault(key, [])\n'
            "        earlier = next((r for r in reversed(seen) if r.text == text), None)\n",
        ),
        (
            "        self._listings[key] = _Listing(text, rid)\n",
            "        self._listings[key] = _Listing(text, rid)\n"
            "        seen.append(self._listings[key])\n",
        ),
        (
            "        self._listings.clear()\n",
            '        self._listings.clear()\n        self.__dict__.pop("_every_listing", None)\n',
        ),
    ),
)
