"""The prefix area's decisions, each read the other way (see `..readings`).

The Decisions table of spec/prefix.md says what each other reading is.
"""

from __future__ import annotations

from ..readings import Reading

# The prefix session's refusal of a withdrawn tool, which a reading moves after the mode's.
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


READINGS: tuple[Reading, ...] = (
    Reading(
        "pfx.tools.mcp-wait-inclusive",
        "ready-at-the-end-is-late",
        "prefix/session.py",
        (("if s.ready_ms <= wait}", "if s.ready_ms < wait}"),),
    ),
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
        "pfx.system.switch-same-model",
        "same-model-makes-it-again",
        "prefix/session.py",
        (("        if model == self.model:\n            return\n", ""),),
    ),
    Reading(
        "pfx.system.load",
        "made-at-the-restart",
        "prefix/session.py",
        (
            (
                "        # rule: pfx.system.load\n        return\n",
                "        # rule: pfx.system.load\n"
                "        if self._system is not None:\n"
                "            self._make_prompt()\n",
            ),
        ),
    ),
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
        "pfx.usage.bedrock-no-fallback",
        "input-tokens-when-a-count-is-missing",
        "prefix/usage.py",
        (
            (
                "    input_total = _difference(total, output)\n",
                "    input_total = _difference(total, output) if total is not None"
                ' and output is not None else _count(body, "usage", "inputTokens")\n',
            ),
        ),
    ),
    Reading(
        "pfx.usage.gemini-missing-zero",
        "missing-cached-count-not-reported",
        "prefix/usage.py",
        (("        read = 0\n", "        read = None\n"),),
    ),
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
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
    Reading(
        "pfx.compact.plan-told-again",
        "plan-left-to-the-summary",
        "prefix/session.py",
        (("        self._told.pop(_PLAN, None)\n", ""),),
    ),
    Reading(
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
    Reading(
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
    Reading(
        "pfx.usage.bedrock-total",
        "input-tokens-as-total",
        "prefix/usage.py",
        (
            (
                "    input_total = _difference(total, output)\n",
                '    input_total = _count(body, "usage", "inputTokens") if total is not None'
                " and output is not None else None\n",
            ),
        ),
    ),
    Reading(
        "pfx.usage.uncached-writes",
        "writes-not-uncached",
        "prefix/usage.py",
        (
            (
                "_difference(input_total, cache_read))",
                "_difference(\n            input_total,"
                " None if cache_read is None else cache_read + (cache_write or 0)))",
            ),
        ),
    ),
    Reading(
        "pfx.compact.made-at-once",
        "made-when-the-next-request-is-built",
        "prefix/session.py",
        (
            (
                "        self._make_prompt()\n"
                "        # The notes went with the history: what the new prompt does not hold",
                "        self._remake = True\n"
                "        # The notes went with the history: what the new prompt does not hold",
            ),
            (
                "        first = self._system is None\n",
                "        first = self._system is None\n"
                '        if self.__dict__.pop("_remake", False):\n'
                "            self._make_prompt()\n",
            ),
        ),
    ),
    Reading(
        "pfx.usage.whole-by-value",
        "whole-as-written",
        "prefix/usage.py",
        (
            (
                "    # rule: pfx.usage.whole-by-value\n    if isinstance(value, float | Decimal)",
                "    if False and isinstance(value, float | Decimal)",
            ),
        ),
    ),
    Reading(
        "pfx.cache.params-wait",
        "params-sent-at-once",
        "prefix/session.py",
        (
            (
                "        self._wanted = self._wanted.updated(changes)\n",
                "        self._wanted = self._wanted.updated(changes)\n"
                "        self._params = self._wanted\n",
            ),
        ),
    ),
    Reading(
        "pfx.usage.mistral-first-count",
        "first-field-present",
        "prefix/usage.py",
        (
            (
                "        found = _count(data, *path)\n"
                "        if found is not None:\n"
                "            return found\n",
                "        parent = _dig(data, *path[:-1])\n"
                "        if isinstance(parent, Mapping) and path[-1] in parent:\n"
                "            return _count(data, *path)\n",
            ),
        ),
    ),
    Reading(
        "pfx.usage.negative-not-reported",
        "clamped-to-zero",
        "prefix/usage.py",
        (
            (
                "    return difference if difference >= 0 else None",
                "    return max(difference, 0)",
            ),
        ),
    ),
    Reading(
        "pfx.reasoning.last-turn-only",
        "sent-as-it-came",
        "prefix/session.py",
        (("        if self._last_turn_only():\n", "        if False:\n"),),
    ),
    Reading(
        "pfx.reasoning.idle",
        "stripped-after-the-longest-lifetime",
        "prefix/session.py",
        (
            (
                "        # rule: pfx.reasoning.idle\n        return\n",
                "        # rule: pfx.reasoning.idle\n"
                "        ttl = self.config.cache.prefix_ttl\n"
                '        seconds = int(ttl[:-1]) * {"s": 1, "m": 60, "h": 3600}[ttl[-1]]\n'
                "        if minutes * 60 > seconds:\n"
                "            self._history = [\n"
                "                without_reasoning(m) if isinstance(m, Answer) else m\n"
                "                for m in self._history\n"
                "            ]\n",
            ),
        ),
    ),
)
