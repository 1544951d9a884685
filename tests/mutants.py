"""Deliberately broken copies of the reference, one or more per rule anchor of every area.

Each mutant is a set of source edits to the reference; `load_mutant` builds the edited copy as
a separate package, so the real reference is never touched. The suite is sound for a rule when
some case tagged with that rule fails against every mutant that breaks it.
"""

from __future__ import annotations

import ast
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import ctxconf.reference

REFERENCE = Path(__file__).resolve().parents[1] / "reference"


@dataclass(frozen=True)
class Mutant:
    rule: str
    name: str
    file: str
    edits: tuple[tuple[str, str], ...]


def _m(rule: str, name: str, file: str, *edits: tuple[str, str]) -> Mutant:
    return Mutant(rule, name, file, edits)


# The loop of a history reload that applies each record read.
_HISTORY_RELOAD = "        for record in loaded.records:\n            self.state.apply(record)"

MUTANTS: tuple[Mutant, ...] = (
    _m("ctx.id.bracket", "sentence-on-next-line", "context/session.py",
       ('return f"{bracket} {sentence}"', 'return f"{bracket}\\n{sentence}"')),
    _m("ctx.id.number", "decimal-ids", "context/session.py",
       ('f"0{self.config.id_digits}x"', 'f"0{self.config.id_digits}d"')),
    _m("ctx.id.given", "ignores-given-ids", "context/session.py",
       ("        if given is None:\n            number", "        if True:\n            number")),
    _m("ctx.text.lines", "splitlines", "context/lines.py",
       ('return _between(text, start, nth_newline(text, last - first + 1, start)).split("\\n")',
        "return text.splitlines()[first - 1 : last]"),
       ("return _between(self.text, start, self.newline(last))",
        "return self.text.splitlines()[first - 1 : last]")),
    _m("ctx.text.chars", "utf16-units", "context/cap.py",
       ("len(text) > limits.max_chars", 'len(text.encode("utf-16-le")) // 2 > limits.max_chars'),
       ("if line_end > max_chars:", 'if len(text[:line_end].encode("utf-16-le")) // 2 > max_chars:')),
    _m("ctx.text.hash", "hash-over-utf16", "context/lines.py",
       ('hashlib.sha256(text.encode("utf-8"))', 'hashlib.sha256(text.encode("utf-16-le"))')),
    _m("ctx.read.bracket", "absolute-path-in-bracket", "context/session.py",
       ('"read_bracket", id=rid, path=path,', '"read_bracket", id=rid, path=key,')),
    _m("ctx.read.numbered", "numbers-from-one", "context/session.py",
       ("line_window(content, first, last), start=first)",
        "line_window(content, first, last), start=1)")),
    _m("ctx.read.window", "limit-not-clamped", "context/session.py",
       ("else min(limit, self.config.read_window)", "else limit")),
    _m("ctx.read.more", "next-offset-off-by-one", "context/session.py",
       ("remaining=total - last, next=last + 1", "remaining=total - last, next=last")),
    _m("ctx.read.final-newline", "hash-ignores-final-newline", "context/lines.py",
       ('hashlib.sha256(text.encode("utf-8"))', 'hashlib.sha256(text.rstrip("\\n").encode("utf-8"))')),
    _m("ctx.read.empty", "empty-as-past-end", "context/session.py",
       ("if total == 0:", "if total == -1:")),
    _m("ctx.read.past-end", "past-end-as-read", "context/session.py",
       ("        if first > total:\n            bracket = t.render(\"file_bracket\"",
        "        if first > total + 1:\n            bracket = t.render(\"file_bracket\"")),
    _m("ctx.stub.unchanged", "stub-names-own-lines", "context/session.py",
       ("target=earlier.id, first=earlier.first, last=earlier.last",
        "target=earlier.id, first=first, last=last")),
    _m("ctx.stub.range", "start-inside-is-enough", "context/session.py",
       ("return self.first <= first and last <= self.last", "return self.first <= first")),
    _m("ctx.stub.changed", "older-equal-hash-still-counts", "context/session.py",
       ("            del self._stub_targets[key]\n            targets = None",
        "            targets = [r for r in targets if r.sha == sha]")),
    _m("ctx.stub.own-change", "edits-keep-reads", "context/session.py",
       ("self._stub_targets.pop(self.identity(path), None)", "None")),
    _m("ctx.stub.newest", "names-oldest", "context/session.py",
       ("for earlier in reversed(targets or []):", "for earlier in (targets or []):")),
    _m("ctx.stub.full-only", "stubs-become-targets", "context/session.py",
       ("                return self._insert(rid, bracket, sentence=sentence, stored=shown)",
        "                targets.append(_FullRead(rid, path, first, last, total, sha))\n"
        "                return self._insert(rid, bracket, sentence=sentence, stored=shown)")),
    _m("ctx.stub.identity", "path-as-given-is-identity", "context/session.py",
       ('return "/" + posixpath.normpath(posixpath.join(self.cwd, path)).lstrip("/")', "return path")),
    _m("ctx.stub.request", "reply-keeps-reads", "context/session.py",
       ("        self._stub_targets.clear()\n        self._listings.clear()\n        return \"\"",
        "        self._listings.clear()\n        return \"\"")),
    _m("ctx.cap.over", "at-limit-is-over", "context/cap.py",
       ("total > limits.max_lines", "total >= limits.max_lines")),
    _m("ctx.cap.head-tail", "one-line-too-many", "context/cap.py",
       ("    while taken < max_lines:\n", "    while taken < max_lines + 1:\n")),
    _m("ctx.cap.head-tail", "joining-newlines-not-counted", "context/cap.py",
       ("if line_end > max_chars:", 'if line_end - text.count("\\n", 0, line_end) > max_chars:')),
    _m("ctx.cap.elided", "elided-off-by-one", "context/cap.py",
       ("elided = total - head_count - tail_count", "elided = total - head_count - tail_count - 1")),
    _m("ctx.cap.cut", "cut-one-short", "context/cap.py",
       ("min(head_stop, limits.head_chars)]", "min(head_stop, limits.head_chars - 1)]")),
    _m("ctx.cap.scope", "reads-capped", "context/session.py",
       ("return self._insert(rid, bracket, block=block, stored=shown)",
        "return self._insert(rid, bracket, block=block, stored=shown, capped=True)")),
    _m("ctx.output.empty", "empty-as-block", "context/session.py",
       ("        if not text:\n", "        if False:\n")),
    _m("ctx.store.full", "stores-what-was-shown", "context/session.py",
       ("full = stored if stored is not None else (sentence",
        "full = None if stored is not None else (sentence")),
    _m("ctx.store.full", "stub-stores-its-sentence", "context/session.py",
       ("                # rule: ctx.stub.full-only\n"
        "                return self._insert(rid, bracket, sentence=sentence, stored=shown)",
        "                # rule: ctx.stub.full-only\n"
        "                return self._insert(rid, bracket, sentence=sentence)")),
    _m("ctx.edit.patch", "files-sorted-by-path", "context/session.py",
       ("        for file in files:\n            self._forget_reads(file.path)",
        "        for file in sorted(files, key=lambda f: f.path):\n"
        "            self._forget_reads(file.path)")),
    _m("ctx.recall.window", "one-line-more", "context/session.py",
       ("block=index.window(first, last))", "block=index.window(first, last + 1))")),
    _m("ctx.recall.id-form", "hash-required", "context/session.py",
       ('wanted = wanted if wanted.startswith("#") else "#" + wanted', "wanted = wanted")),
    _m("ctx.recall.unknown", "unknown-names-argument", "context/session.py",
       ('t.render("recall_unknown", target=wanted)', 't.render("recall_unknown", target=target)')),
    _m("ctx.recall.past-end", "past-end-shows-nothing", "context/session.py",
       ("        total = index.total\n        if first > total:",
        "        total = index.total\n        if first > total + 1:")),
    _m("ctx.recall.plain", "recall-capped", "context/session.py",
       ("block=index.window(first, last))", "block=index.window(first, last), capped=True)")),
    _m("ctx.edit.diff", "four-lines-of-context", "context/session.py",
       ("self.config.diff_context, t,", "self.config.diff_context + 1, t,")),
    _m("ctx.edit.hunks", "six-apart-split", "context/diff.py",
       ("if block.i0 - group[-1].i1 > 2 * context:", "if block.i0 - group[-1].i1 >= 2 * context:")),
    _m("ctx.edit.hunks", "count-of-one-shown", "context/diff.py", ("if count == 1:", "if count == -1:")),
    _m("ctx.edit.myers", "insertion-on-ties", "context/diff.py",
       ("down if right < down else", "down if right <= down else"),
       ("furthest(before, low, k - 1) < furthest", "furthest(before, low, k - 1) <= furthest")),
    _m("ctx.edit.myers", "insertions-first", "context/diff.py",
       ('            show("-", a[block.i0 : block.i1])\n            show("+", b[block.j0 : block.j1])',
        '            show("+", b[block.j0 : block.j1])\n            show("-", a[block.i0 : block.i1])')),
    _m("ctx.edit.no-newline", "no-marker", "context/diff.py",
       ("out.append(no_newline)", "pass")),
    _m("ctx.edit.created", "counts-newlines", "context/session.py",
       ('t.render("created", lines=count_lines(file.after))',
        't.render("created", lines=file.after.count("\\n"))')),
    _m("ctx.edit.deleted", "deleted-says-no-change", "context/session.py",
       ('return t.render("deleted_bracket", id=rid, path=file.path), None, None',
        'return t.render("deleted_bracket", id=rid, path=file.path), t.render("no_change"), None')),
    _m("ctx.edit.no-change", "empty-diff", "context/session.py",
       ("        if not diff:\n", "        if diff is None:\n")),
    _m("ctx.edit.patch", "one-file-patch-as-many", "context/session.py",
       ("if len(files) == 1:", "if False:")),
    _m("ctx.edit.patch", "patch-order-reversed", "context/session.py",
       ("for file in files:", "for file in reversed(files):")),
    _m("ctx.edit.note", "note-without-blank-line", "context/session.py",
       ('text = self._texts.render("with_note", text=text, note=note)', 'text = text + "\\n" + note')),
    _m("ctx.edit.multiedit", "multiedit-as-new-file", "context/session.py",
       ("        return self._change(PatchFile(path, before, after), note, id)\n\n    def write(",
        "        return self._change(PatchFile(path, None, after), note, id)\n\n    def write(")),
    _m("ctx.edit.max-edit", "no-limit", "context/diff.py",
       ("    start = _snake(a, b, 0, 0)\n", "    max_edit = len(a) + len(b)\n    start = _snake(a, b, 0, 0)\n")),
    _m("ctx.edit.max-edit", "limit-off-by-one", "context/diff.py",
       ("    start = _snake(a, b, 0, 0)\n", "    max_edit -= 1\n    start = _snake(a, b, 0, 0)\n")),
    _m("ctx.edit.capped", "diff-not-capped", "context/session.py",
       ("block=block, capped=True, note=note)", "block=block, capped=False, note=note)")),
    _m("ctx.edit.capped", "patch-not-capped", "context/session.py",
       ("block=body, capped=True, note=note)", "block=body, capped=False, note=note)")),
    _m("ctx.same.result", "never-same", "context/session.py",
       ("if earlier is not None and earlier.text == text:", "if False:")),
    _m("ctx.same.args", "keys-unsorted", "context/session.py",
       ("tuple(sorted((key, _canonical(item))", "tuple(((key, _canonical(item))")),
    _m("ctx.same.args", "numbers-by-spelling", "context/session.py",
       ('return ("number", Decimal(value))', 'return ("number", str(value))')),
    _m("ctx.stub.identity", "double-slash-kept", "context/session.py",
       ('.lstrip("/")', '.lstrip("/") if not path.startswith("//") else posixpath.normpath(path)')),
    _m("ctx.same.tools", "every-tool-deduplicated", "context/session.py",
       ("if tool not in self.config.dedupe_by_result:", "if False:")),
    _m("ctx.same.changed", "compares-with-first", "context/session.py",
       ("self._listings[key] = _Listing(text, rid)",
        "self._listings.setdefault(key, _Listing(text, rid))")),
    _m("ctx.same.request", "reply-keeps-listings", "context/session.py",
       ("        self._stub_targets.clear()\n        self._listings.clear()\n",
        "        self._stub_targets.clear()\n")),
    _m("ctx.compact.table", "no-blank-line-after-heading", "context/session.py",
       ('return "\\n\\n".join(parts) + "\\n\\n"', 'return "\\n".join(parts) + "\\n\\n"')),
    _m("ctx.compact.rows", "keeps-oldest", "context/session.py",
       ("[-self.config.compaction_rows :]", "[: self.config.compaction_rows]")),
    _m("ctx.compact.rows", "first-read-position", "context/session.py",
       ("        self._covered.pop(key, None)\n", "")),
    _m("ctx.compact.covers", "reply-forgets-reads", "context/session.py",
       ("        self._listings.clear()\n        return \"\"",
        "        self._listings.clear()\n        self._covered.clear()\n        return \"\"")),
    _m("ctx.compact.covers", "stubs-covered", "context/session.py",
       ("                return self._insert(rid, bracket, sentence=sentence, stored=shown)",
        "                self._covered[key] = _FullRead(rid, path, first, last, total, sha)\n"
        "                return self._insert(rid, bracket, sentence=sentence, stored=shown)")),
    _m("ctx.compact.none", "heading-without-reads", "context/session.py",
       ('        if not covered:\n            return ""',
        '        if not covered:\n            return self._texts.render("compaction_heading")')),
    _m("ctx.compact.forget", "compaction-keeps-stubs", "context/session.py",
       ("        self._covered.clear()\n        self.reply()", "        self._covered.clear()")),
    _m("ctx.compact.escape", "pipe-unescaped", "context/session.py",
       ('path=read.path.replace("|", "\\\\|")', "path=read.path")),
    # -- the prefix area (prefix.md): the session in prefix.py, the usage shapes in usage.py --
    _m("pfx.system.once", "made-for-every-request", "prefix/session.py",
       ("        # rule: pfx.system.once\n        assert self._system is not None\n",
        "        # rule: pfx.system.once\n        self._make_prompt()\n"
        "        assert self._system is not None\n")),
    _m("pfx.system.holds", "mode-left-out", "prefix/session.py",
       ('parts.append(t.render("system_mode", mode=self._mode))',
        'parts.append(t.render("system_mode", mode="any"))')),
    _m("pfx.system.no-clock", "date-in-prompt", "prefix/session.py",
       ("parts = [self._base] if self._base else []", 'parts = [f"Today is {self._date}."]')),
    _m("pfx.system.number", "new-number-for-every-making", "prefix/session.py",
       ('self._system = t.render("system_separator").join(parts)',
        'self._system = t.render("system_separator").join(parts) + "\\0" * len(self._numbers)')),
    _m("pfx.system.switch", "switch-keeps-the-prompt", "prefix/session.py",
       ("        if self._system is not None:\n            self._make_prompt()",
        "        if False:\n            self._make_prompt()")),
    _m("pfx.note.form", "note-after-text", "prefix/session.py",
       ('message = self._texts.render("message_with_note", note=note, text=text)',
        'message = text + "\\n\\n" + note')),
    _m("pfx.note.differs", "told-never-updated", "prefix/session.py",
       ("            self._told[key] = value\n            if value is None:",
        "            if value is None:")),
    _m("pfx.note.order", "reversed-lines", "prefix/session.py",
       ("for key, value in self._current():", "for key, value in reversed(self._current()):")),
    _m("pfx.note.stored", "history-without-notes", "prefix/session.py",
       ("self._history.append(message)", "self._history.append(text)")),
    _m("pfx.note.date", "no-date-at-the-start", "prefix/session.py",
       ("self._told: dict[str, str | None] = {}",
        "self._told: dict[str, str | None] = {_DATE: date}")),
    _m("pfx.note.mode", "mode-not-told", "prefix/session.py",
       ('                else:\n                    lines.append(n.render("mode", mode=value))',
        "                else:\n                    pass")),
    _m("pfx.note.plan-ended", "plan-end-as-any-mode", "prefix/session.py",
       ("if told == self.config.plan_mode:", "if False:")),
    _m("pfx.note.plan-edit", "plan-not-told", "prefix/session.py",
       ('lines.append(n.render("plan_own", plan=value))', "pass")),
    _m("pfx.note.personality", "personality-not-told", "prefix/session.py",
       ('lines.append(n.render("personal", personality=value))', "pass")),
    _m("pfx.note.file", "file-not-told", "prefix/session.py",
       ('lines.append(n.render("file", path=path, content=value))', "pass")),
    _m("pfx.note.file-empty", "empty-as-changed", "prefix/session.py",
       ('                if value:\n                    lines.append(n.render("file"',
        '                if True:\n                    lines.append(n.render("file"')),
    _m("pfx.note.mcp", "late-instructions-untold", "prefix/session.py",
       ('lines.append(n.render("mcp", server=server, instructions=value))', "pass")),
    _m("pfx.tools.fixed", "late-tools-at-once", "prefix/session.py",
       ("            self._connected = {s.server for s in self._servers}\n        return request",
        "            self._connected = {s.server for s in self._servers}\n"
        "            self._tools += tuple(n for s in self._servers\n"
        "                                 if s.ready_ms > self.config.mcp_wait_ms\n"
        "                                 for n in s.tools)\n"
        "        return request")),
    _m("pfx.tools.mcp-wait", "wait-exclusive", "prefix/session.py",
       ("if s.ready_ms <= wait}", "if s.ready_ms < wait}")),
    _m("pfx.tools.requires", "runs-in-any-mode", "prefix/session.py",
       ("if requires is not None and requires != self._mode:", "if False:")),
    _m("pfx.tools.requires", "offered-only-in-its-mode", "prefix/session.py",
       ("self._tools = tuple(name for name in offered if name not in self._withdrawn)",
        "self._tools = tuple(name for name in offered if name not in self._withdrawn\n"
        "                            and self._requires.get(name) in (None, self._mode))")),
    _m("pfx.tools.withdrawn", "withdrawn-runs", "prefix/session.py",
       ("if tool in self._withdrawn:", "if False:")),
    _m("pfx.tools.withdrawn", "unlisted-at-once", "prefix/session.py",
       ("            self._withdrawn.add(name)",
        "            self._withdrawn.add(name)\n"
        "            self._tools = tuple(t for t in self._tools if t != name)")),
    _m("pfx.wrap.request", "wrap-up-without-tools", "prefix/session.py",
       ('        return self._send(self._texts.render("wrap_up"), person=False)',
        '        sent = self._send(self._texts.render("wrap_up"), person=False)\n'
        "        return Request(sent.system_number, sent.system, (), sent.message)")),
    _m("pfx.wrap.request", "wrap-up-carries-the-note", "prefix/session.py",
       ('self._send(self._texts.render("wrap_up"), person=False)',
        'self._send(self._texts.render("wrap_up"), person=True)')),
    _m("pfx.wrap.no-call", "wrap-up-runs-calls", "prefix/session.py",
       ('        if self._wrapping_up:\n            return t.render("wrap_up_refused")',
        '        if False:\n            return t.render("wrap_up_refused")')),
    _m("pfx.compact.turn", "summary-with-a-new-prompt", "prefix/session.py",
       ('        request = self._send(self._texts.render("compact_request"), person=False)',
        "        self._make_prompt()\n"
        '        request = self._send(self._texts.render("compact_request"), person=False)')),
    _m("pfx.compact.after", "date-not-told-again", "prefix/session.py",
       ("        self._told.pop(_DATE, None)\n", "")),
    _m("pfx.usage.numbers", "writes-not-uncached", "prefix/usage.py",
       ("_difference(input_total, cache_read))",
        "_difference(input_total, None if cache_read is None else cache_read + (cache_write or 0)))")),
    _m("pfx.usage.numbers", "spaces-in-json", "prefix/usage.py",
       ('separators=(",", ":")', 'separators=(", ", ": ")')),
    _m("pfx.usage.unreported", "missing-as-zero", "prefix/usage.py",
       ("        return None\n    return value", "        return 0\n    return value")),
    _m("pfx.usage.stream", "first-usage-event", "prefix/usage.py",
       ("            found = event", "            found = found or event")),
    _m("pfx.usage.openai-chat", "cached-tokens-ignored", "prefix/usage.py",
       ('        _count(body, "usage", "prompt_tokens_details", "cached_tokens"),\n        None,\n',
        "        None,\n        None,\n")),
    _m("pfx.usage.openai-responses", "reads-chat-fields", "prefix/usage.py",
       ('_count(body, "usage", "input_tokens_details", "cached_tokens"),',
        '_count(body, "usage", "prompt_tokens_details", "cached_tokens"),')),
    _m("pfx.usage.anthropic", "input-tokens-as-total", "prefix/usage.py",
       ("return Usage.of(_sum(uncached_part, read, write), read, write)",
        "return Usage.of(uncached_part, read, write)")),
    _m("pfx.usage.anthropic", "stream-deltas-added", "prefix/usage.py",
       ('usage.update({k: v for k, v in event["usage"].items() if v is not None})',
        'usage.update({k: v + usage.get(k, 0) if isinstance(v, int) else v\n'
        '                          for k, v in event["usage"].items() if v is not None})')),
    _m("pfx.usage.gemini", "missing-cached-not-reported", "prefix/usage.py",
       ("        read = 0\n", "        read = None\n")),
    _m("pfx.usage.llamacpp", "prompt-n-as-total", "prefix/usage.py",
       ("return Usage.of(_sum(cache_n, prompt_n), cache_n, None)",
        "return Usage.of(prompt_n, cache_n, None)")),
    _m("pfx.usage.vllm", "missing-details-as-zero", "prefix/usage.py",
       ("    return _openai_chat(body)\n\n\ndef _ollama",
        "    usage = _openai_chat(body)\n"
        "    if usage.cache_read is None:\n"
        "        return Usage.of(usage.input_total, 0, None)\n"
        "    return usage\n\n\n"
        "def _ollama")),
    _m("pfx.usage.ollama", "missing-cached-as-zero", "prefix/usage.py",
       ('_count(body, "prompt_eval_cached_count"), None)',
        '_count(body, "prompt_eval_cached_count") or 0, None)')),
    _m("pfx.usage.openrouter", "writes-ignored", "prefix/usage.py",
       ('        _count(body, "usage", "prompt_tokens_details", "cache_write_tokens"),\n',
        "        None,\n")),
    _m("pfx.usage.deepseek", "reads-details-only", "prefix/usage.py",
       ("    read = hit\n", "    read = None\n")),
    _m("pfx.usage.mistral", "cache-read-as-zero", "prefix/usage.py",
       ('return Usage.of(_count(body, "usage", "prompt_tokens"), read, None)',
        'return Usage.of(_count(body, "usage", "prompt_tokens"), 0, None)')),
    _m("pfx.usage.bedrock", "input-tokens-as-total", "prefix/usage.py",
       ("input_total = _difference(total, output)",
        'input_total = _count(body, "usage", "inputTokens")')),
    _m("pfx.usage.unreported", "null-as-zero", "prefix/usage.py",
       ("        data = data.get(key)\n    return data",
        "        if key in data and data[key] is None:\n            return 0\n"
        "        data = data.get(key)\n    return data")),
    _m("pfx.usage.openai-chat", "first-usage-chunk", "prefix/usage.py",
       ('return _last(events, lambda e: isinstance(e.get("usage"), Mapping))',
        "return next((e for e in events if isinstance(e, Mapping)"
        ' and isinstance(e.get("usage"), Mapping)), {})')),
    _m("pfx.usage.gemini", "null-cached-as-zero", "prefix/usage.py",
       ('given = isinstance(metadata, Mapping) and "cachedContentTokenCount" in metadata',
        'given = isinstance(metadata, Mapping) and metadata.get("cachedContentTokenCount")'
        " is not None")),
    _m("pfx.usage.deepseek", "no-hit-plus-miss", "prefix/usage.py",
       ("        total = _sum(hit, miss)\n", "        total = None\n")),
    _m("pfx.usage.mistral", "only-the-first-field", "prefix/usage.py",
       ('        ("usage", "prompt_token_details", "cached_tokens"),\n'
        '        ("usage", "num_cached_tokens"),\n', "")),
    _m("pfx.usage.shown", "rows-from-zero", "prefix/session.py",
       ("enumerate(self._usage, start=1)", "enumerate(self._usage, start=0)")),
    _m("pfx.usage.shown", "not-reported-as-zero", "prefix/session.py",
       ('return t.render("not_reported") if value is None else str(value)',
        'return "0" if value is None else str(value)')),
    # -- the prompt cache (prefix.md, pfx.cache.*): the bodies in body.py, the session's side --
    _m("pfx.cache.marks", "tools-unmarked", "prefix/body.py",
       ("    if prompt.tools:\n        found.append", "    if False:\n        found.append")),
    _m("pfx.cache.marks", "first-message-marked", "prefix/session.py",
       ("            self._key,\n            len(history) - 1,\n",
        "            self._key,\n            0,\n")),
    _m("pfx.cache.limit", "marks-every-message", "prefix/body.py",
       ('        found.append(_Mark("message", cache.message_ttl, prompt.marked))\n'
        "    if len(found) > cache.max_marks:",
        '        found += [_Mark("message", cache.message_ttl, i) for i in range(prompt.marked + 1)]\n'
        "    if False:")),
    _m("pfx.cache.lifetimes", "newest-message-lives-longest", "prefix/body.py",
       ('_Mark("system", cache.prefix_ttl)', '_Mark("system", cache.message_ttl)'),
       ('_Mark("message", cache.message_ttl, prompt.marked)',
        '_Mark("message", cache.prefix_ttl, prompt.marked)')),
    _m("pfx.cache.params", "wrap-up-asks-for-no-calls", "prefix/session.py",
       ("        self._wrapping_up = True\n",
        "        self._wrapping_up = True\n"
        '        self._params = Params("none", self._params.effort)\n')),
    _m("pfx.cache.params", "params-dropped-at-a-compaction", "prefix/session.py",
       ("        self._make_prompt()\n        # The notes went with the history",
        "        self._make_prompt()\n        self._params = Params()\n"
        "        # The notes went with the history")),
    _m("pfx.cache.key", "key-per-process", "prefix/session.py",
       ("        # rule: pfx.system.load\n        return",
        '        # rule: pfx.system.load\n        self._key = f"{self._key}-restarted"')),
    _m("pfx.cache.aside", "aside-alone", "prefix/session.py",
       ("            (*history, text),\n", "            (text,),\n"),
       ("            _newest_sent(history),\n", "            None,\n")),
    _m("pfx.cache.aside", "aside-takes-the-note", "prefix/session.py",
       ("            (*history, text),\n",
        '            (*history, "".join(self._note_lines()[:0]) + text),\n')),
    _m("pfx.cache.aside", "aside-marks-its-own-prompt", "prefix/session.py",
       ("            _newest_sent(history),\n", "            len(history),\n")),
    # -- the model's reasoning (prefix.md, pfx.reasoning.*): the answers in bodies, kept --
    _m("pfx.reasoning.anthropic", "thinking-after-the-tool-use", "prefix/body.py",
       ('return {"role": "assistant", "content": list(message.parts)}',
        'return {"role": "assistant", "content": sorted(message.parts,'
        ' key=lambda b: b.get("type") == "thinking")}')),
    _m("pfx.reasoning.anthropic", "latest-signature-on-every-block", "prefix/body.py",
       ('return {"role": "assistant", "content": list(message.parts)}',
        'latest = [b["signature"] for m in prompt.messages if isinstance(m, Answer)'
        ' for b in m.parts if b.get("type") == "thinking"][-1]\n'
        '            return {"role": "assistant", "content": [{**b, "signature": latest}'
        ' if b.get("type") == "thinking" else b for b in message.parts]}')),
    _m("pfx.reasoning.anthropic", "redacted-thinking-dropped", "prefix/body.py",
       ('return {"role": "assistant", "content": list(message.parts)}',
        'return {"role": "assistant", "content": [b for b in message.parts'
        ' if b.get("type") != "redacted_thinking"]}')),
    _m("pfx.reasoning.anthropic", "stripped-within-the-tool-loop", "prefix/session.py",
       ("            self._history.append(text)\n            return self._request(",
        "            self._history = self._closed()\n"
        "            self._history.append(text)\n            return self._request(")),
    _m("pfx.reasoning.responses", "reasoning-items-dropped", "prefix/body.py",
       ("            return list(message.parts)\n",
        '            return [p for p in message.parts if p.get("type") != "reasoning"]\n')),
    _m("pfx.reasoning.responses", "encrypted-content-dropped", "prefix/body.py",
       ("            return list(message.parts)\n",
        '            return [{k: v for k, v in p.items() if k != "encrypted_content"}'
        " for p in message.parts]\n")),
    _m("pfx.reasoning.gemini", "signature-on-every-call", "prefix/body.py",
       ('return {"role": "model", "parts": list(message.parts)}',
        'first = next(p["thoughtSignature"] for p in message.parts if "thoughtSignature" in p)\n'
        '            return {"role": "model", "parts": [{**p, "thoughtSignature": first}'
        ' if "functionCall" in p else p for p in message.parts]}')),
    _m("pfx.reasoning.gemini", "signatures-dropped", "prefix/body.py",
       ('return {"role": "model", "parts": list(message.parts)}',
        'return {"role": "model", "parts": [{k: v for k, v in p.items()'
        ' if k != "thoughtSignature"} for p in message.parts]}')),
    _m("pfx.reasoning.chat", "reasoning-content-dropped", "prefix/body.py",
       ("            return list(message.parts)\n",
        '            return [{k: v for k, v in p.items() if k != "reasoning_content"}'
        " for p in message.parts]\n")),
    _m("pfx.reasoning.kept", "earlier-thinking-stripped", "prefix/session.py",
       ("        if self._last_turn_only():\n", "        if True:\n")),
    # The history area (reference/history/): one or more per rule, none for a decision
    # (reference/history/readings.py reads each decision the other way).
    _m("hist.persist.cold-equals-live", "reload-forgets-an-overflow", "history/entries.py",
       ("            bool(data[\"reactive\"]),", "            False,")),
    _m("hist.persist.cold-equals-live", "reload-drops-text-beside-calls", "history/session.py",
       (_HISTORY_RELOAD,
        "        for record in loaded.records:\n"
        '            if record["type"] == "entry" and record["entry"].get("calls"):\n'
        '                record = {**record, "entry": {**record["entry"], "text": ""}}\n'
        "            self.state.apply(record)")),
    _m("hist.persist.no-half-turn", "each-message-written-at-once", "history/core.py",
       ("        self.state.apply(record)\n        self._unwritten.append(record)",
        "        self.state.apply(record)\n        self.store.write([record])")),
    _m("hist.persist.torn-tail", "torn-fragment-kept", "history/store.py",
       ("            del self.records[-1]\n", "            pass\n")),
    _m("hist.persist.append-only", "tip-records-replaced", "history/store.py",
       ("        self.records.extend(encode(record) for record in records)",
        '        if records[0]["type"] == "tip":\n'
        "            self.records = [r for r in self.records if '\"type\":\"tip\"' not in r]\n"
        "        start = len(self.records)\n"
        "        self.records.extend(encode(record) for record in records)")),
    _m("hist.retry.after-reload", "retry-at-the-root", "history/session.py",
       ("User(pending.id, self._tip,", "User(pending.id, None,")),
    _m("hist.trim.newest", "budget-reached-is-over", "history/ladder.py",
       ("        if total > budget:", "        if total >= budget:")),
    _m("hist.trim.no-orphan", "cut-at-a-result", "history/ladder.py",
       ('        if messages[index].kind == "user":',
        '        if messages[index].kind in ("user", "result"):')),
    _m("hist.trim.starts-with-user", "cut-at-an-assistant", "history/ladder.py",
       ('        if messages[index].kind == "user":',
        '        if messages[index].kind in ("user", "assistant"):')),
    _m("hist.tree.path", "request-of-every-entry", "history/core.py",
       ("        return self.state.conversation.view(self.config)",
        "        from .request import view_of\n\n"
        "        return view_of(list(self.state.conversation.entries.values()), self.config)")),
    _m("hist.tree.tip-persisted", "reload-ignores-tips", "history/session.py",
       (_HISTORY_RELOAD,
        "        for record in loaded.records:\n"
        '            if record["type"] != "tip":\n'
        "                self.state.apply(record)")),
    _m("hist.branch.pointer", "branch-writes-its-target", "history/moves.py",
       ("        self._write([tip_record(conversation.name, target.id)])",
        "        self._write([entry_record(conversation.name, target),\n"
        "                     tip_record(conversation.name, target.id)])")),
    _m("hist.branch.back", "branch-lands-before-its-target", "history/moves.py",
       ("        self._write([tip_record(conversation.name, target.id)])",
        "        self._write([tip_record(conversation.name, target.parent)])")),
    _m("hist.branch.edit", "person-message-kept-on-the-path", "history/moves.py",
       ("            self._write([tip_record(conversation.name, target.parent)])",
        "            self._write([tip_record(conversation.name, target.id)])")),
    _m("hist.branch.clean-target", "unfinished-call-accepted", "history/moves.py",
       ("        if open_calls(conversation.path_to(to)):", "        if False:")),
    _m("hist.branch.reads", "paths-sorted", "history/ladder.py",
       ("    return tuple(found)", "    return tuple(sorted(found))")),
    _m("hist.branch.reads", "failed-reads-listed", "history/ladder.py",
       ('if call.tool != "read" or call.call in failed or call.call not in answered:',
        'if call.tool != "read" or call.call not in answered:')),
    _m("hist.fork.copy", "fork-leaves-out-the-tip", "history/moves.py",
       ("for entry in path]", "for entry in path[:-1]]")),
    _m("hist.fork.new-ids", "copies-keep-their-ids", "history/moves.py",
       ('        ids = {e.id: t.render("fork_id", fork=name, k=k) for k, e in enumerate(path, start=1)}',
        "        ids = {e.id: e.id for e in path}"),
       ("        taken = sorted((self.state.ids() | self._given) & set(ids.values()))",
        "        taken: list[str] = []")),
    _m("hist.fork.lineage", "tree-without-its-source", "history/tree.py",
       ("    if conversation.forked_from is not None:", "    if False:")),
    _m("hist.checkpoint.boundary", "label-on-the-parent", "history/moves.py",
       ("label_record(conversation.name, label, conversation.tip)",
        "label_record(conversation.name, label, "
        "conversation.entries[conversation.tip].parent or conversation.tip)")),
    _m("hist.checkpoint.persisted", "reload-ignores-labels", "history/session.py",
       (_HISTORY_RELOAD,
        "        for record in loaded.records:\n"
        '            if record["type"] not in ("label", "done"):\n'
        "                self.state.apply(record)")),
    _m("hist.rewind.pointer", "digest-after-the-exploration", "history/moves.py",
       ("Digest(entry_id, target, label,", "Digest(entry_id, conversation.tip, label,")),
    _m("hist.rewind.digest", "digest-is-the-report", "history/moves.py",
       ('t.render("digest", label=label, report=report)', "report")),
    _m("hist.rewind.dropped", "clamped-to-the-oldest-live-entry", "history/moves.py",
       ("        if not self._live_entry(target):\n"
        "            # rule: hist.rewind.dropped\n"
        '            return t.render("rewind_dropped", label=label)',
        "        if not self._live_entry(target):\n"
        "            alive = [e.id for e in self._path() if self._live_entry(e.id)]\n"
        "            if not alive:\n"
        '                return t.render("rewind_dropped", label=label)\n'
        "            target = alive[0]")),
    _m("hist.rewind.unknown", "unknown-as-dropped", "history/moves.py",
       ('return t.render("rewind_unknown", label=label)',
        'return t.render("rewind_dropped", label=label)')),
    _m("hist.ladder.order", "every-rung-runs", "history/ladder.py",
       ("        if target is not None and current <= target:\n            break",
        "        if False:\n            break")),
    _m("hist.elide.pair", "elided-without-its-header", "history/request.py",
       ("            lines.append(elided_text(entry, config))",
        "            lines[-1:] = [elided_text(entry, config)]")),
    _m("hist.elide.batched", "no-minimum", "history/ladder.py",
       ("if not chosen or reclaimed <= 0 or reclaimed < minimum:",
        "if not chosen or reclaimed <= 0:")),
    _m("hist.images.prune", "pruned-image-still-named-an-image", "history/request.py",
       ('lines.append(t.render("image_pruned", image=name))',
        'lines.append(t.render("image", image=name))')),
    _m("hist.snapshot.shape", "pages-from-zero", "history/request.py",
       ("first, last = page * size + 1,", "first, last = page * size,")),
    _m("hist.snapshot.from-source", "earlier-source-forgotten", "history/ladder.py",
       ("source = previous.snapshot.source + _ids(body[: start.tail])",
        "source = _ids(body[: start.tail])")),
    _m("hist.snapshot.vision", "snapshot-without-vision", "history/ladder.py",
       ("            if not vision:", "            if False:")),
    _m("hist.summary.chain", "summary-not-chained", "history/ladder.py",
       ("previous.id if isinstance(previous, Compaction) and previous.summary is not None else None",
        "None")),
    _m("hist.compact.overflow", "overflow-skips-the-free-rungs", "history/sizing.py",
       ("self._run_ladder(entry_id, summary, RUNGS, rejected=",
        "self._run_ladder(entry_id, summary, (SUMMARY,), rejected=")),
    _m("hist.compact.overflow", "ignores-the-size-test", "history/ladder.py",
       ("if rejected is not None and current + request >= rejected:", "if False:")),
    _m("hist.compact.overflow", "summary-request-not-counted", "history/ladder.py",
       ("if rejected is not None and current + request >= rejected:",
        "if rejected is not None and current >= rejected:")),
    _m("hist.compact.overflow", "overflow-compacts-twice", "history/sizing.py",
       ("        if self._reactive_since_the_person():", "        if False:")),
    _m("hist.compact.clean-cut", "tail-one-message-early", "history/ladder.py",
       ("    return Start(view, kept_from(view.body, budget))",
        "    return Start(view, max(0, kept_from(view.body, budget) - 1))")),
    _m("hist.compact.reachable", "compacted-entries-gone", "history/moves.py",
       ("        target = conversation.entries.get(to)",
        "        target = conversation.entries.get(to)\n"
        '        if any(e.kind == "compaction" for e in conversation.path()):\n'
        "            target = None if target not in conversation.path()[-1:] else target")),
    _m("hist.fork.copy", "current-record-first", "history/moves.py",
       ("        records = [fork_record(name, source.name, source.tip)]\n",
        "        records = [fork_record(name, source.name, source.tip), current_record(name)]\n"),
       ("        records.append(current_record(name))\n", "")),
    _m("hist.retry.after-reload", "torn-clearing-sends-again", "history/session.py",
       ("        if pending is not None and pending.id in self.state.ids():", "        if False:"),
       # Sent again in words only: appending the entry again would loop its path.
       ("        # rule: hist.retry.after-reload\n",
        "        if pending.id in self.state.ids():\n"
        '            return t.render("retry_sent", id=pending.id)\n')),
    _m("hist.persist.pending", "retry-writes-pending-again", "history/session.py",
       ("        self._turn_open = True\n        self._append(User(pending.id",
        "        self._turn_open = True\n"
        "        self._write([pending_record(pending.id, pending.text, pending.images)])\n"
        "        self._append(User(pending.id")),
    _m("hist.compact.overflow", "summary-request-measured-as-a-block", "history/ladder.py",
       ("request = tokens(config.compact_request, config.chars_per_token)",
        'request = tokens(f"--- user {entry_id} ---\\n" + config.compact_request,'
        " config.chars_per_token)")),
    _m("hist.trim.newest", "trim-counts-every-unsent-message", "history/sizing.py",
       ("        count = counted(block.kind for block in messages[:start])",
        "        ids = [e.id for e in self._path()]\n"
        "        count = counted(e.kind for e in self._path()[: ids.index(cut.id)])")),
    _m("hist.summary.chain", "count-takes-in-the-earlier-summary", "history/ladder.py",
       ("    taken = counted(block.kind for block in start.before_tail)"
        " + counted(kinds[i] for i in paged)",
        "    ids = [e.id for e in plan.path]\n"
        "    taken = counted(e.kind for e in plan.path[: ids.index(cut.id)])")),
    _m("hist.command.context", "images-left-out", "history/sizing.py",
       ('                by_kind["images"] += block.images * image_tokens', "                pass")),
    _m("hist.command.shake", "shake-needs-the-elision-minimum", "history/sizing.py",
       ("elide_min=0 if shake else ladder.elide_min_tokens", "elide_min=ladder.elide_min_tokens")),
    _m("hist.command.shake", "shake-keeps-the-compaction-tail", "history/sizing.py",
       ("budget=ladder.shake_keep_tokens if shake else ladder.keep_tokens",
        "budget=ladder.keep_tokens")),
    _m("hist.command.tree", "tree-command-shows-the-request", "history/sizing.py",
       ("            return self.tree()", "            return self.request()")),
)


class _EditedModules(importlib.abc.MetaPathFinder):
    """The edited module of each loaded mutant, by its name in that mutant's package; every
    other module of a mutant is found in reference/ by the path finder, as it is."""

    def __init__(self) -> None:
        self.edited: dict[str, tuple[Path, str]] = {}

    def find_spec(
        self, fullname: str, path: object, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.edited:
            return None
        file, source = self.edited[fullname]
        return importlib.util.spec_from_file_location(fullname, file, loader=_Edited(file, source))


class _Edited(importlib.abc.Loader):
    """A module compiled from its edited text (never from the bytecode of the file as it is)."""

    def __init__(self, file: Path, source: str) -> None:
        self.file, self.source = file, source

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        exec(compile(self.source, str(self.file), "exec"), module.__dict__)


_FINDER = _EditedModules()
# The reference as the suite imports it; a mutant shares those of its modules the edit cannot
# reach.
_REAL = "ctxconf.reference"


def _join(*parts: str) -> str:
    return ".".join(part for part in parts if part)


@cache
def _imports() -> dict[str, tuple[frozenset[str], bool]]:
    """Each module of reference/, by its name inside the package ("context.session", "context"
    for a folder's __init__, "" for the top one): the modules of the package it imports anywhere
    in its text, and whether it imports by name at run time (importlib), which no reading of
    its text can follow."""
    found: dict[str, tuple[frozenset[str], bool]] = {}
    for path in sorted(REFERENCE.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        parts = list(path.relative_to(REFERENCE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            package = parts
        else:
            package = parts[:-1]
        deps: set[str] = set()
        dynamic = False
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                dynamic |= any(alias.name.startswith("importlib") for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                dynamic |= (node.module or "").startswith("importlib")
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - (node.level - 1)]
                target = _join(*base, node.module or "")
                deps.add(target)
                deps.update(_join(target, alias.name) for alias in node.names)
        found[".".join(parts)] = (frozenset(deps), dynamic)
    return found


def _loaded_anew(edited: str) -> set[str]:
    """The modules a mutant of `edited` must have of its own: that one, every module importing
    one of those (or importing by name at run time), and every package above one of them (a
    package shared would be handed the mutant's module as its attribute)."""
    modules = _imports()
    anew = {edited} | {name for name, (_, dynamic) in modules.items() if dynamic}
    while True:
        above = {".".join(n.split(".")[:k]) for n in anew for k in range(len(n.split(".")))}
        users = {name for name, (deps, _) in modules.items() if deps & anew}
        if above | users <= anew:
            return anew
        anew |= above | users


def load_mutant(mutant: Mutant) -> types.ModuleType:
    """The reference package with `mutant`'s edits, imported under a name of its own. The
    modules the edit cannot reach (that neither are it nor import it) are the reference's own,
    already imported; the others are read from reference/ (their bytecode reused), the edited
    one from its edited text. Nothing is copied."""
    package = f"mutant_{mutant.rule.replace('.', '_').replace('-', '_')}_{mutant.name.replace('-', '_')}"
    source_file = REFERENCE / mutant.file
    source = source_file.read_text(encoding="utf-8")
    for old, new in mutant.edits:
        if source.count(old) != 1:
            raise AssertionError(f"{mutant.name}: {old!r} occurs {source.count(old)} times in {mutant.file}")
        source = source.replace(old, new)
    for name in [n for n in sys.modules if n == package or n.startswith(package + ".")]:
        del sys.modules[name]  # a mutant loaded before: this one is loaded anew
    dotted = mutant.file.removesuffix(".py").replace("/", ".")
    edited = f"{package}.{dotted}"
    _FINDER.edited[edited] = (source_file, source)
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)
    if Path(ctxconf.reference.__file__).resolve().parent == REFERENCE:  # the same files
        anew = _loaded_anew(dotted)
        for name in _imports():
            if name not in anew and _join(_REAL, name) in sys.modules:
                sys.modules[_join(package, name)] = sys.modules[_join(_REAL, name)]
    spec = importlib.util.spec_from_file_location(
        package, REFERENCE / "__init__.py", submodule_search_locations=[str(REFERENCE)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    importlib.import_module(edited)  # imported by now if the package uses it; made sure of
    return module
