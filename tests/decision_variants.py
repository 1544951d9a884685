"""Each decision of the spec read the other way, and the shortcuts a first implementation takes.

`DECISION_VARIANTS` holds, per decision anchor, a variant of the reference that takes the other
reading of the Decisions table: it must fail exactly the cases tagged with that anchor
(`test_decisions`). `SHORTCUTS` are wrong ways to look back over earlier results (the newest
candidate instead of the right one, numbering only the steps without an id); each must fail a
case of the rule it breaks. Both are `Mutant`s, built by `load_mutant`.
"""

from __future__ import annotations

from .history_variants import HISTORY_VARIANTS
from .mutants import Mutant

_SESSION = "context/session.py"


def _v(anchor: str, name: str, *edits: tuple[str, str]) -> Mutant:
    return Mutant(anchor, name, _SESSION, edits)


_VARIANTS = (
    _v(
        "ctx.text.cr-shown",
        "cr-hidden",
        (
            't.render("read_line", number=number, text=line)',
            't.render("read_line", number=number, text=line.removesuffix("\\r")'
            ' if number < total or content.endswith("\\n") else line)',
        ),
    ),
    _v(
        "ctx.read.limit-lowered",
        "limit-as-given",
        ("else min(limit, self.config.read_window)", "else limit"),
    ),
    _v(
        "ctx.read.past-end",
        "past-end-as-empty-range",
        (
            '        if first > total:\n            bracket = t.render("file_bracket"',
            '        if first > total + 10**9:\n            bracket = t.render("file_bracket"',
        ),
    ),
    _v(
        "ctx.stub.changed-back",
        "stub-after-change-back",
        (
            "            del self._stub_targets[key]\n            targets = None",
            "            targets = [r for r in targets if r.sha == sha]",
        ),
    ),
    _v(
        "ctx.stub.own-change-full",
        "hash-alone-decides",
        ("self._stub_targets.pop(self.identity(path), None)", "None"),
    ),
    _v(
        "ctx.store.read-note",
        "stored-with-note",
        (
            "        return self._insert(rid, bracket, block=block, stored=shown)\n\n    def edit",
            "        return self._insert(rid, bracket, block=block)\n\n    def edit",
        ),
    ),
    _v(
        "ctx.recall.target-folded",
        "target-as-written",
        ("wanted = _folded_target(target)", "wanted = target"),
    ),
    _v(
        "ctx.recall.past-end",
        "past-end-as-empty-range",
        (
            '        if first > total:\n            bracket = t.render("recall_past_end_bracket"',
            "        if first > total + 10**9:\n"
            '            bracket = t.render("recall_past_end_bracket"',
        ),
    ),
    _v(
        "ctx.edit.no-change",
        "empty-diff",
        (
            '            return bracket, t.render("no_change"), None',
            '            return bracket, None, ""',
        ),
    ),
    _v(
        "ctx.edit.note-blank-line",
        "note-after-one-newline",
        (
            '            text = self._texts.render("with_note", text=text, note=note)',
            '            text = text + "\\n" + note',
        ),
    ),
    _v(
        "ctx.edit.max-edit",
        "myers-however-long",
        ("t, self.config.diff_max_edit", "t, 10**9"),
    ),
    _v(
        "ctx.compact.empty-file",
        "empty-file-row",
        (
            '            return self._insert(rid, bracket, block=t.render("read_empty"))',
            "            self._covered.pop(key, None)\n"
            "            self._covered[key] = _FullRead(rid, path, 0, 0, 0, sha)\n"
            '            return self._insert(rid, bracket, block=t.render("read_empty"))',
        ),
    ),
    _v(
        "ctx.compact.escape",
        "bar-as-it-is",
        ('path=read.path.replace("|", "\\\\|"),', "path=read.path,"),
    ),
)
_MORE_VARIANTS = (
    _v(
        "ctx.read.empty-any-offset",
        "empty-file-past-the-end",
        ("        if total == 0:\n", "        if total == 0 and first == 1:\n"),
    ),
    _v(
        "ctx.stub.path-normalised",
        "paths-as-written",
        (
            'return "/" + posixpath.normpath(posixpath.join(self.cwd, path)).lstrip("/")',
            "return path",
        ),
    ),
    _v(
        "ctx.output.empty",
        "bracket-alone",
        ('sentence=self._texts.render("no_output"), ', ""),
    ),
    _v(
        "ctx.same.args-any-order",
        "members-in-written-order",
        ("tuple(sorted((key, _canonical(item))", "tuple(((key, _canonical(item))"),
    ),
    _v(
        "ctx.same.args-number-value",
        "numbers-as-written",
        ('return ("number", Decimal(value))', 'return ("number", str(value))'),
    ),
)
# The prefix session's refusal of a withdrawn tool, which a variant moves after the mode's.
_WITHDRAWN_REFUSAL = (
    '        if tool in self._withdrawn:\n            return t.render("withdrawn", tool=tool)\n'
)
# Each setter of the prefix session, quoted so that it occurs once, with the key of what it sets.
_PREFIX_SETTERS = (
    ("-> None:\n        self._date = date\n", "_DATE"),
    ("-> None:\n        self._mode = mode\n", "_MODE"),
    ("        self._personality = personality\n\n", "_PERSONALITY"),
    ("        self._files[path] = content\n", "_FILE + path"),
    ("        self._plan = plan\n", "_PLAN"),
)


def _after_each_setter(method: str) -> tuple[tuple[str, str], ...]:
    """Edits that call the session's `method` with the setter's key right after each setter."""
    edits = []
    for source, key in _PREFIX_SETTERS:
        assignment = source.strip().splitlines()[-1].strip()
        edits.append(
            (source, source.replace(assignment, f"{assignment}\n        self.{method}({key})"))
        )
    return tuple(edits)


# The prefix area's decisions, each read the other way in its reference.
_PREFIX_VARIANTS = (
    Mutant(
        "pfx.tools.mcp-wait-inclusive",
        "ready-at-the-end-is-late",
        "prefix/session.py",
        (("if s.ready_ms <= wait}", "if s.ready_ms < wait}"),),
    ),
    Mutant(
        "pfx.wrap.refused-first",
        "tool-refusal-first",
        "prefix/session.py",
        (
            (
                '        if self._wrapping_up:\n            return t.render("wrap_up_refused")\n',
                "",
            ),
            (
                "        return result\n\n    def wrap_up",
                "        if self._wrapping_up:\n"
                '            return t.render("wrap_up_refused")\n'
                "        return result\n\n    def wrap_up",
            ),
        ),
    ),
    Mutant(
        "pfx.tools.withdrawn-first",
        "mode-checked-first",
        "prefix/session.py",
        (
            (_WITHDRAWN_REFUSAL, ""),
            (
                "        return result\n\n    def wrap_up",
                _WITHDRAWN_REFUSAL + "        return result\n\n    def wrap_up",
            ),
        ),
    ),
    Mutant(
        "pfx.wrap.through-compaction",
        "compaction-ends-the-wrap-up",
        "prefix/session.py",
        (
            (
                "        self._history.clear()\n",
                "        self._history.clear()\n        self._wrapping_up = False\n",
            ),
        ),
    ),
    Mutant(
        "pfx.tools.requires-any-mode",
        "only-plan-mode-refused",
        "prefix/session.py",
        (
            (
                "if requires is not None and requires != self._mode:",
                "if requires == self.config.plan_mode and requires != self._mode:",
            ),
        ),
    ),
    Mutant(
        "pfx.note.file-new-empty",
        "new-empty-file-told",
        "prefix/session.py",
        (
            (
                'empty = "" if key.startswith((_FILE, _MCP)) else None',
                'empty = "" if key.startswith(_MCP) else None',
            ),
        ),
    ),
    Mutant(
        "pfx.note.mcp-no-instructions",
        "late-server-always-told",
        "prefix/session.py",
        (
            (
                'empty = "" if key.startswith((_FILE, _MCP)) else None',
                'empty = "" if key.startswith(_FILE) else None',
            ),
            (
                "            elif value:\n                server",
                "            else:\n                server",
            ),
        ),
    ),
    Mutant(
        "pfx.note.plan-ended-told",
        "plan-ended-by-the-mode-left",
        "prefix/session.py",
        (
            (
                "-> None:\n        self._mode = mode\n",
                "-> None:\n        self._left = self._mode\n        self._mode = mode\n",
            ),
            (
                "if told == self.config.plan_mode:",
                'if getattr(self, "_left", None) == self.config.plan_mode:',
            ),
        ),
    ),
    Mutant(
        "pfx.system.first-request",
        "made-at-the-start",
        "prefix/session.py",
        (
            (
                "        self._usage: list[Usage] = []\n",
                "        self._usage: list[Usage] = []\n"
                "        wait = self.config.mcp_wait_ms\n"
                "        self._connected = {s.server for s in self._servers"
                " if s.ready_ms <= wait}\n"
                "        self._make_prompt()\n"
                "        self._first_pending = True\n",
            ),
            (
                "        first = self._system is None\n",
                '        first = self.__dict__.pop("_first_pending", False)\n',
            ),
            (
                "            self._connected = {s.server for s in self._servers"
                " if s.ready_ms <= wait}\n"
                "            self._make_prompt()\n",
                "            pass\n",
            ),
        ),
    ),
    Mutant(
        "pfx.system.switch-same-model",
        "same-model-makes-it-again",
        "prefix/session.py",
        (("        if model == self.model:\n            return\n", ""),),
    ),
    Mutant(
        "pfx.system.no-model",
        "model-named-in-the-prompt",
        "prefix/session.py",
        (
            (
                '        parts.append(t.render("system_mode", mode=self._mode))\n',
                "        parts.append(self.model)\n"
                '        parts.append(t.render("system_mode", mode=self._mode))\n',
            ),
        ),
    ),
    Mutant(
        "pfx.system.number-returns",
        "new-number-whenever-it-changed",
        "prefix/session.py",
        (
            (
                "        number = self._numbers.setdefault(self._system, len(self._numbers) + 1)\n",
                '        if self._system != getattr(self, "_last_sent", None):\n'
                '            self._count = getattr(self, "_count", 0) + 1\n'
                "            self._last_sent = self._system\n"
                "        number = self._count\n",
            ),
        ),
    ),
    Mutant(
        "pfx.note.undone",
        "every-change-told",
        "prefix/session.py",
        (
            *_after_each_setter("_touch"),
            (
                "    def withdraw(",
                "    def _touch(self, key: str) -> None:\n"
                '        self.__dict__.setdefault("_touched", set()).add(key)\n\n'
                "    def withdraw(",
            ),
            (
                "            if value == told:\n",
                '            touched = self.__dict__.get("_touched", ())\n'
                "            if value == told and (key not in self._told or key not in touched):\n",
            ),
            (
                "        return lines\n",
                '        self.__dict__.pop("_touched", None)\n        return lines\n',
            ),
            (
                "        self._told.update(self._prompt_items())\n",
                "        self._told.update(self._prompt_items())\n"
                '        self.__dict__.pop("_touched", None)\n',
            ),
        ),
    ),
    Mutant(
        "pfx.note.order-fixed",
        "lines-in-the-order-of-the-changes",
        "prefix/session.py",
        (
            *_after_each_setter("_mark"),
            (
                "    def withdraw(",
                "    def _mark(self, key: str) -> None:\n"
                '        when = self.__dict__.setdefault("_when", {})\n'
                "        when.pop(key, None)\n"
                "        when[key] = None\n\n"
                "    def _in_change_order(self):\n"
                '        w = list(self.__dict__.get("_when", {}))\n'
                "        return sorted(\n"
                "            self._current(), key=lambda i: w.index(i[0]) if i[0] in w else -1\n"
                "        )\n\n"
                "    def withdraw(",
            ),
            (
                "for key, value in self._current():",
                "for key, value in self._in_change_order():",
            ),
        ),
    ),
    Mutant(
        "pfx.usage.stream-not-an-object",
        "stream-with-a-non-object-reports-nothing",
        "prefix/usage.py",
        (
            (
                "        carrier = shape.stream(body_or_events)\n",
                "        carrier = shape.stream(body_or_events)\n"
                "        if not all(isinstance(event, Mapping) for event in body_or_events):\n"
                "            carrier = {}\n",
            ),
        ),
    ),
    Mutant(
        "pfx.usage.bedrock-no-fallback",
        "input-tokens-when-a-count-is-missing",
        "prefix/usage.py",
        (
            (
                "if total is not None and output is not None else None",
                "if total is not None and output is not None"
                ' else _count(body, "usage", "inputTokens")',
            ),
        ),
    ),
    Mutant(
        "pfx.usage.gemini-missing-zero",
        "missing-cached-count-not-reported",
        "prefix/usage.py",
        (("        read = 0\n", "        read = None\n"),),
    ),
    Mutant(
        "pfx.usage.anthropic-replaces",
        "delta-fields-added",
        "prefix/usage.py",
        (
            (
                'usage.update({k: v for k, v in event["usage"].items() if v is not None})',
                "usage.update({k: v + usage.get(k, 0) if isinstance(v, int) else v\n"
                '                          for k, v in event["usage"].items() if v is not None})',
            ),
        ),
    ),
    Mutant(
        "pfx.usage.stream-no-usage",
        "zeros",
        "prefix/usage.py",
        (
            (
                "return shape.parse(carrier) if carrier else NOT_REPORTED",
                "return shape.parse(carrier) if carrier else Usage(0, 0, 0, 0)",
            ),
        ),
    ),
    Mutant(
        "pfx.usage.rows-by-response",
        "rows-numbered-by-request",
        "prefix/session.py",
        (
            (
                "        self._usage.append(usage)\n",
                "        self._usage.append(usage)\n"
                '        rows = self.__dict__.setdefault("_rows", [])\n'
                '        rows.append(self.__dict__.get("_sent", 0))\n',
            ),
            (
                "        self._offered = self._tools\n",
                "        self._offered = self._tools\n"
                '        self._sent = self.__dict__.get("_sent", 0) + 1\n',
            ),
            (
                "for number, usage in enumerate(self._usage, start=1)",
                'for number, usage in zip(self.__dict__.get("_rows", []), self._usage)',
            ),
        ),
    ),
    Mutant(
        "pfx.wrap.no-note",
        "note-on-the-wrap-up",
        "prefix/session.py",
        (
            (
                'self._send(self._texts.render("wrap_up"), person=False)',
                'self._send(self._texts.render("wrap_up"), person=True)',
            ),
        ),
    ),
    Mutant(
        "pfx.compact.no-note",
        "note-on-the-compaction-request",
        "prefix/session.py",
        (
            (
                'self._send(self._texts.render("compact_request"), person=False)',
                'self._send(self._texts.render("compact_request"), person=True)',
            ),
        ),
    ),
    Mutant(
        "pfx.compact.plan-told-again",
        "plan-left-to-the-summary",
        "prefix/session.py",
        (("        self._told.pop(_PLAN, None)\n", ""),),
    ),
    Mutant(
        "pfx.tools.withdrawn-listed",
        "unlisted-at-once",
        "prefix/session.py",
        (
            (
                "            self._withdrawn.add(name)",
                "            self._withdrawn.add(name)\n"
                "            self._tools = tuple(t for t in self._tools if t != name)",
            ),
        ),
    ),
    Mutant(
        "pfx.usage.input-without-cache",
        "count-alone-as-total",
        "prefix/usage.py",
        (
            (
                "return Usage.of(_sum(uncached_part, read, write), read, write)",
                "return Usage.of(uncached_part, read, write)",
            ),
            (
                "return Usage.of(_sum(cache_n, prompt_n), cache_n, None)",
                "return Usage.of(prompt_n, cache_n, None)",
            ),
        ),
    ),
    Mutant(
        "pfx.usage.bedrock-total",
        "input-tokens-as-total",
        "prefix/usage.py",
        (
            (
                "input_total = total - output if total",
                'input_total = _count(body, "usage", "inputTokens") if total',
            ),
        ),
    ),
    Mutant(
        "pfx.usage.uncached-writes",
        "writes-not-uncached",
        "prefix/usage.py",
        (
            (
                "input_total - cache_read if input_total",
                "input_total - cache_read - (cache_write or 0) if input_total",
            ),
        ),
    ),
)
DECISION_VARIANTS: dict[str, Mutant] = {
    variant.rule: variant
    for variant in (*_VARIANTS, *_MORE_VARIANTS, *_PREFIX_VARIANTS, *HISTORY_VARIANTS)
}

SHORTCUTS: tuple[Mutant, ...] = (
    _v(
        "ctx.same.args",
        "numbers-as-doubles",
        ('return ("number", Decimal(value))', 'return ("number", float(value))'),
    ),
    _v(
        "ctx.id.number",
        "numbers-only-steps-without-an-id",
        (
            "        self._count += 1\n        if given is None:\n",
            "        if given is None:\n            self._count += 1\n",
        ),
    ),
    _v(
        "ctx.stub.newest",
        "looks-at-the-newest-read-only",
        ("for earlier in reversed(targets or []):", "for earlier in (targets or [])[-1:]:"),
    ),
    _v(
        "ctx.stub.identity",
        "any-file-with-the-same-hash",
        (
            "        targets = self._stub_targets.get(key)\n",
            "        targets = [r for v in self._stub_targets.values() for r in v if r.sha == sha]"
            " or None\n",
        ),
    ),
    _v(
        "ctx.same.result",
        "compares-with-the-previous-listing",
        (
            "        earlier = self._listings.get(key)\n",
            "        earlier = self._listings.get(key)\n"
            "        if self._listings and list(self._listings)[-1] != key:\n"
            "            earlier = None\n",
        ),
    ),
    _v(
        "ctx.same.result",
        "names-the-latest-repeat",
        (
            "            return self._insert(rid, bracket, sentence=sentence, stored=text)\n",
            "            self._listings[key] = _Listing(text, rid)\n"
            "            return self._insert(rid, bracket, sentence=sentence, stored=text)\n",
        ),
    ),
    _v(
        "ctx.compact.rows",
        "row-from-the-latest-read",
        (
            "                return self._insert(rid, bracket, sentence=sentence, stored=shown)\n"
            "        read =",
            "                self._covered.pop(key, None)\n"
            "                self._covered[key] = _FullRead(rid, path, first, last, total, sha)\n"
            "                return self._insert(rid, bracket, sentence=sentence, stored=shown)\n"
            "        read =",
        ),
    ),
    _v(
        "ctx.compact.rows",
        "rows-in-first-read-order",
        (
            "        self._covered.pop(key, None)\n        self._covered[key] = read",
            "        self._covered[key] = read",
        ),
    ),
    _v(
        "ctx.compact.covers",
        "rows-only-since-the-reply",
        (
            '        self._stub_targets.clear()\n        self._listings.clear()\n        return ""',
            "        self._stub_targets.clear()\n        self._listings.clear()\n"
            '        self._covered.clear()\n        return ""',
        ),
    ),
    _v(
        "ctx.recall.target-folded",
        "trims-unicode-white-space",
        ("wanted = _folded_target(target)", "wanted = target.strip().lower()"),
    ),
)
