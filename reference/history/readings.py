"""The history area's decisions, each read the other way (see `..readings`).

The Decisions table of spec/history.md says what each other reading is.
"""

from __future__ import annotations

from ..readings import Reading


def _r(anchor: str, name: str, file: str, *edits: tuple[str, str]) -> Reading:
    return Reading(anchor, name, f"history/{file}", edits)


# The ops refused while a turn is open (spec/history.md, hist.turn.writes-between).
_BETWEEN = '("branch", "fork", "switch", "checkpoint", "rewind", "trim", "compact", "command")'

READINGS: tuple[Reading, ...] = (
    _r(
        "hist.turn.boundary",
        "written-when-the-calls-are-answered",
        "session.py",
        (
            "tuple(images), error, uneventful)\n        self._append(entry)\n",
            "tuple(images), error, uneventful)\n"
            "        self._append(entry)\n"
            "        if not self.state.conversation.open_calls():\n"
            "            self.store.write(self._unwritten)\n"
            "            self._unwritten = []\n",
        ),
    ),
    _r(
        "hist.persist.pending",
        "retry-gives-a-draft",
        "session.py",
        (
            "        self._turn_open = True\n"
            "        self._append(User(pending.id, self._tip, pending.text, pending.images))\n"
            '        return t.render("retry_sent", id=pending.id)',
            '        return t.render("draft", id=pending.id, text=pending.text)',
        ),
    ),
    _r(
        "hist.turn.writes-between",
        "done-and-written-mid-turn",
        "core.py",
        (
            '    """The state of a session and the helpers its steps share."""\n',
            '    """The state of a session and the helpers its steps share."""\n\n'
            "    def __init_subclass__(cls) -> None:\n"
            "        # Every operation between turns runs as if no turn were open.\n"
            f"        for name in {_BETWEEN}:\n"
            "            method = cls.__dict__.get(name)\n"
            "            if method is None:\n"
            "                continue\n\n"
            "            def at_once(self, *args, _method=method, **kwargs):\n"
            "                was, self._turn_open = self._turn_open, False\n"
            "                try:\n"
            "                    return _method(self, *args, **kwargs)\n"
            "                finally:\n"
            "                    self._turn_open = was\n\n"
            "            setattr(cls, name, at_once)\n",
        ),
    ),
    _r(
        "hist.persist.truncate",
        "overflow-writes-at-once",
        "sizing.py",
        (
            '        return self._finish(replace(run.entry, reactive=True), run.lines, "")',
            '        text = self._finish(replace(run.entry, reactive=True), run.lines, "")\n'
            "        self.store.write(self._unwritten)\n"
            "        self._unwritten = []\n"
            "        return text",
        ),
    ),
    _r(
        "hist.persist.damaged-refused",
        "records-before-the-damage-loaded",
        "store.py",
        (
            "                return Loaded(tuple(read), torn, True, last_good)",
            "                return Loaded(tuple(read), torn, False, last_good)",
        ),
    ),
    _r(
        "hist.tokens.measure",
        "utf16-code-units",
        "request.py",
        (
            "    return math.ceil(len(text) / chars_per_token)",
            '    return math.ceil(len(text.encode("utf-16-le")) // 2 / chars_per_token)',
        ),
    ),
    _r(
        "hist.trim.forward",
        "cut-back-to-the-turn",
        "sizing.py",
        (
            "        start = kept_from(messages, budget)\n",
            "        start = kept_from(messages, budget)\n"
            "        candidate = next(\n"
            "            (i for i in range(len(messages))\n"
            "             if sum(block.tokens for block in messages[i:]) <= budget),\n"
            "            None,\n"
            "        )\n"
            "        if candidate is not None:\n"
            "            start = max(\n"
            '                (i for i in range(candidate + 1) if messages[i].kind == "user"),\n'
            "                default=start,\n"
            "            )\n",
        ),
    ),
    _r(
        "hist.trim.recorded",
        "trim-removes",
        "tree.py",
        (
            "    entries: dict[str, Entry] = field(default_factory=dict)  # in append order",
            "    entries: dict[str, Entry] = field(default_factory=lambda: _Removed())",
        ),
        (
            "    def append(self, entry: Entry) -> None:\n        self.entries[entry.id] = entry\n",
            "    def append(self, entry: Entry) -> None:\n"
            "        self.entries[entry.id] = entry\n"
            '        if entry.kind == "trim":\n'
            "            ids = [e.id for e in self.path_to(entry.parent)]\n"
            "            self.entries.gone.update(ids[: ids.index(entry.cut)])\n",
        ),
        (
            "@dataclass\nclass Conversation:",
            "class _Removed(dict):\n"
            "    # What a trim removed: gone from the tree, a branch and a load's count; the\n"
            "    # request, built from the path, still says how many messages it left out.\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.gone = set()\n\n"
            "    def get(self, key, default=None):\n"
            "        return default if key in self.gone else super().get(key, default)\n\n"
            "    def values(self):\n"
            "        return [v for k, v in self.items() if k not in self.gone]\n\n"
            "    def __iter__(self):\n"
            "        return (k for k in list(super().__iter__()) if k not in self.gone)\n\n"
            "    def __len__(self):\n"
            "        return sum(1 for _ in self)\n\n"
            "    def __contains__(self, key):\n"
            "        return super().__contains__(key) and key not in self.gone\n\n\n"
            "@dataclass\nclass Conversation:",
        ),
    ),
    _r(
        "hist.fork.ids",
        "numbered-in-the-source",
        "moves.py",
        (
            '        ids = {e.id: t.render("fork_id", fork=name, k=k)'
            " for k, e in enumerate(path, start=1)}",
            "        place = {entry_id: k for k, entry_id in enumerate(source.entries, start=1)}\n"
            '        ids = {e.id: t.render("fork_id", fork=name, k=place[e.id]) for e in path}',
        ),
    ),
    _r(
        "hist.rewind.conversation-only",
        "files-restored",
        "moves.py",
        (
            "        digest = Digest(entry_id, target, label, "
            't.render("digest", label=label, report=report))',
            "        path = self._path()\n"
            "        after = path[[e.id for e in path].index(target) + 1 :]\n"
            "        restored = list(dict.fromkeys(\n"
            '            str(call.args.get("path")) for e in after if isinstance(e, Assistant)\n'
            '            for call in e.calls if call.tool in ("edit", "write")\n'
            "        ))\n"
            '        text = t.render("digest", label=label, report=report)\n'
            "        if restored:\n"
            '            text = text.replace("Files were not changed.",\n'
            '                                "Files restored: " + ", ".join(restored) + ".")\n'
            "        digest = Digest(entry_id, target, label, text)",
        ),
        (
            "from .entries import Compaction, Digest, Trim, User, renamed",
            "from .entries import Assistant, Compaction, Digest, Trim, User, renamed",
        ),
    ),
    _r(
        "hist.rewind.once",
        "rewound-again",
        "moves.py",
        ("        if label in conversation.completed:", "        if False:"),
    ),
    _r(
        "hist.rewind.live",
        "other-branches-live",
        "moves.py",
        (
            "        if entry_id not in ids:\n            return False",
            "        if entry_id not in ids:\n            return True",
        ),
    ),
    _r(
        "hist.rewind.after-compaction",
        "live-while-kept-in-the-tail",
        "moves.py",
        (
            "        made = [i for i, entry in enumerate(path)"
            " if isinstance(entry, Trim | Compaction)]\n"
            "        return not made or ids.index(entry_id) >= made[-1]",
            "        cut = next((e.cut for e in reversed(path) if isinstance(e, Trim | Compaction)"
            " and e.cut), None)\n"
            "        return cut is None or ids.index(entry_id) >= ids.index(cut)",
        ),
    ),
    _r(
        "hist.elide.flagged",
        "every-result-by-age",
        "ladder.py",
        (
            "if not isinstance(entry, Result) or not entry.uneventful or entry.error:",
            "if not isinstance(entry, Result) or entry.error:",
        ),
    ),
    _r(
        "hist.images.all",
        "only-results-images",
        "ladder.py",
        (
            "            if isinstance(entry, User | Result):",
            "            if isinstance(entry, Result):",
        ),
    ),
    _r(
        "hist.snapshot.source-original",
        "drawn-as-shown",
        "ladder.py",
        ("    elided_text,\n", "    elided_text,\n    message_block,\n"),
        (
            "    chars = len(snapshot_source(plan.path, draft, config))",
            "    shown = effects_of((*plan.path, plan.entry()))\n"
            "    by_id = {entry.id: entry for entry in plan.path}\n"
            '    chars = len("\\n".join(\n'
            "        message_block(by_id[i], config, shown).text for i in source\n"
            "    ))",
        ),
    ),
    _r(
        "hist.rewind.digest-counted",
        "digests-not-counted",
        "entries.py",
        (
            "    return sum(1 for kind in kinds if kind in MESSAGE_KINDS)",
            '    return sum(1 for kind in kinds if kind in MESSAGE_KINDS and kind != "digest")',
        ),
    ),
    _r(
        "hist.ladder.stop-then-request",
        "stop-ends-the-answer",
        "ladder.py",
        (
            "    lines.append(t.render(\"request_change\", before=before, after=current))",
            "    if stopped is None:\n"
            "        lines.append(t.render(\"request_change\", before=before, after=current))",
        ),
    ),
    _r(
        "hist.summary.files-whole-path",
        "files-of-the-messages-summarised",
        "ladder.py",
        (
            "    summary = Summary(text, cut.id, chained, read_paths(plan.path, cut.id))",
            "    taken_ids = {b.entry.id for b in start.before_tail if b.entry is not None}\n"
            "    summary = Summary(\n"
            "        text, cut.id, chained,"
            " read_paths([e for e in plan.path if e.id in taken_ids], cut.id)\n"
            "    )",
        ),
    ),
)
