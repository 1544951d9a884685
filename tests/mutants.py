"""Deliberately broken copies of the reference, one or more per rule anchor.

Each mutant is a set of source edits to the reference; `load_mutant` builds the edited copy as
a separate package, so the real reference is never touched. The suite is sound for a rule when
some case tagged with that rule fails against every mutant that breaks it.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
import types
from dataclasses import dataclass
from pathlib import Path

REFERENCE = Path(__file__).resolve().parents[1] / "reference"


@dataclass(frozen=True)
class Mutant:
    rule: str
    name: str
    file: str
    edits: tuple[tuple[str, str], ...]


def _m(rule: str, name: str, file: str, *edits: tuple[str, str]) -> Mutant:
    return Mutant(rule, name, file, edits)


MUTANTS: tuple[Mutant, ...] = (
    _m("ctx.id.bracket", "sentence-on-next-line", "session.py",
       ('return f"{bracket} {sentence}"', 'return f"{bracket}\\n{sentence}"')),
    _m("ctx.id.number", "decimal-ids", "session.py",
       ('f"0{self.config.id_digits}x"', 'f"0{self.config.id_digits}d"')),
    _m("ctx.id.given", "ignores-given-ids", "session.py",
       ("if given is not None:\n            return given", "if False:\n            return given")),
    _m("ctx.text.lines", "splitlines", "lines.py",
       ('return text.split("\\n", last)[first - 1 : last]',
        "return text.splitlines()[first - 1 : last]")),
    _m("ctx.text.chars", "utf16-units", "cap.py",
       ("len(text) > limits.max_chars", 'len(text.encode("utf-16-le")) // 2 > limits.max_chars'),
       ("used += len(line) + 1", 'used += len(line.encode("utf-16-le")) // 2 + 1')),
    _m("ctx.text.hash", "hash-over-utf16", "lines.py",
       ('hashlib.sha256(text.encode("utf-8"))', 'hashlib.sha256(text.encode("utf-16-le"))')),
    _m("ctx.read.bracket", "absolute-path-in-bracket", "session.py",
       ('"read_bracket", id=rid, path=path,', '"read_bracket", id=rid, path=key,')),
    _m("ctx.read.numbered", "numbers-from-one", "session.py",
       ("line_window(content, first, last), start=first)",
        "line_window(content, first, last), start=1)")),
    _m("ctx.read.window", "limit-not-clamped", "session.py",
       ("else min(limit, self.config.read_window)", "else limit")),
    _m("ctx.read.more", "next-offset-off-by-one", "session.py",
       ("remaining=total - last, next=last + 1", "remaining=total - last, next=last")),
    _m("ctx.read.final-newline", "hash-ignores-final-newline", "lines.py",
       ('hashlib.sha256(text.encode("utf-8"))', 'hashlib.sha256(text.rstrip("\\n").encode("utf-8"))')),
    _m("ctx.read.empty", "empty-as-past-end", "session.py",
       ("if total == 0:", "if total == -1:")),
    _m("ctx.read.past-end", "past-end-as-read", "session.py",
       ("        if first > total:\n            bracket = t.render(\"file_bracket\"",
        "        if first > total + 1:\n            bracket = t.render(\"file_bracket\"")),
    _m("ctx.stub.unchanged", "stub-names-own-lines", "session.py",
       ("target=earlier.id, first=earlier.first, last=earlier.last",
        "target=earlier.id, first=first, last=last")),
    _m("ctx.stub.range", "start-inside-is-enough", "session.py",
       ("return self.first <= first and last <= self.last", "return self.first <= first")),
    _m("ctx.stub.changed", "older-equal-hash-still-counts", "session.py",
       ("            del self._stub_targets[key]\n            targets = None",
        "            targets = [r for r in targets if r.sha == sha]")),
    _m("ctx.stub.own-change", "edits-keep-reads", "session.py",
       ("self._stub_targets.pop(self.identity(path), None)", "None")),
    _m("ctx.stub.newest", "names-oldest", "session.py",
       ("for earlier in reversed(targets or []):", "for earlier in (targets or []):")),
    _m("ctx.stub.full-only", "stubs-become-targets", "session.py",
       ("                return self._insert(rid, bracket, sentence=sentence, stored=shown)",
        "                targets.append(_FullRead(rid, path, first, last, total, sha))\n"
        "                return self._insert(rid, bracket, sentence=sentence, stored=shown)")),
    _m("ctx.stub.identity", "path-as-given-is-identity", "session.py",
       ('return "/" + posixpath.normpath(posixpath.join(self.cwd, path)).lstrip("/")', "return path")),
    _m("ctx.stub.request", "reply-keeps-reads", "session.py",
       ("        self._stub_targets.clear()\n        self._listings.clear()\n        return \"\"",
        "        self._listings.clear()\n        return \"\"")),
    _m("ctx.cap.over", "at-limit-is-over", "cap.py",
       ("count_lines(text) > limits.max_lines", "count_lines(text) >= limits.max_lines")),
    _m("ctx.cap.head-tail", "one-line-too-many", "cap.py",
       ("islice(lines, max_lines)", "islice(lines, max_lines + 1)")),
    _m("ctx.cap.head-tail", "joining-newlines-not-counted", "cap.py",
       ("used += len(line) + 1", "used += len(line) + (1 if used < 0 else 0)")),
    _m("ctx.cap.elided", "elided-off-by-one", "cap.py",
       ("elided = len(lines) - head_count - tail_count",
        "elided = len(lines) - head_count - tail_count - 1")),
    _m("ctx.cap.cut", "cut-one-short", "cap.py",
       ("lines[0][: limits.head_chars]", "lines[0][: limits.head_chars - 1]")),
    _m("ctx.cap.scope", "reads-capped", "session.py",
       ("return self._insert(rid, bracket, block=block, stored=shown)",
        "return self._insert(rid, bracket, block=block, stored=shown, capped=True)")),
    _m("ctx.output.empty", "empty-as-block", "session.py",
       ("        if not text:\n", "        if False:\n")),
    _m("ctx.store.full", "stores-what-was-shown", "session.py",
       ("full = stored if stored is not None else (sentence",
        "full = None if stored is not None else (sentence")),
    _m("ctx.recall.window", "one-line-more", "session.py",
       ('block="\\n".join(line_window(stored, first, last))',
        'block="\\n".join(line_window(stored, first, last + 1))')),
    _m("ctx.recall.id-form", "case-sensitive", "session.py",
       ("wanted = target.strip().lower()", "wanted = target.strip()")),
    _m("ctx.recall.unknown", "unknown-names-argument", "session.py",
       ('t.render("recall_unknown", target=wanted)', 't.render("recall_unknown", target=target)')),
    _m("ctx.recall.past-end", "past-end-shows-nothing", "session.py",
       ("        total = count_lines(stored)\n        if first > total:",
        "        total = count_lines(stored)\n        if first > total + 1:")),
    _m("ctx.recall.plain", "recall-capped", "session.py",
       ('block="\\n".join(line_window(stored, first, last)))',
        'block="\\n".join(line_window(stored, first, last)), capped=True)')),
    _m("ctx.edit.diff", "four-lines-of-context", "session.py",
       ("self.config.diff_context, t)", "self.config.diff_context + 1, t)")),
    _m("ctx.edit.hunks", "six-apart-split", "diff.py",
       ("if index - end > 2 * context:", "if index - end >= 2 * context:")),
    _m("ctx.edit.hunks", "count-of-one-shown", "diff.py", ("if count == 1:", "if count == -1:")),
    _m("ctx.edit.myers", "insertion-on-ties", "diff.py",
       ("furthest[offset + k - 1] < furthest[offset + k + 1]",
        "furthest[offset + k - 1] <= furthest[offset + k + 1]"),
       ("before[k - 1 + d] < before[k + 1 + d]", "before[k - 1 + d] <= before[k + 1 + d]")),
    _m("ctx.edit.myers", "insertions-first", "diff.py",
       ('        ops.extend(_Op("-", line) for line in a[i:mi])\n'
        '        ops.extend(_Op("+", line) for line in b[j:mj])',
        '        ops.extend(_Op("+", line) for line in b[j:mj])\n'
        '        ops.extend(_Op("-", line) for line in a[i:mi])')),
    _m("ctx.edit.no-newline", "no-marker", "diff.py",
       ('if not op.line.endswith("\\n"):', "if False:")),
    _m("ctx.edit.created", "counts-newlines", "session.py",
       ('t.render("created", lines=count_lines(file.after))',
        't.render("created", lines=file.after.count("\\n"))')),
    _m("ctx.edit.deleted", "deleted-says-no-change", "session.py",
       ('return t.render("deleted_bracket", id=rid, path=file.path), None, None',
        'return t.render("deleted_bracket", id=rid, path=file.path), t.render("no_change"), None')),
    _m("ctx.edit.no-change", "empty-diff", "session.py",
       ("        if not diff:\n", "        if diff is None:\n")),
    _m("ctx.edit.patch", "one-file-patch-as-many", "session.py",
       ("if len(files) == 1:", "if False:")),
    _m("ctx.edit.patch", "patch-order-reversed", "session.py",
       ("for file in files:", "for file in reversed(files):")),
    _m("ctx.edit.note", "note-without-blank-line", "session.py",
       ('text = self._texts.render("with_note", text=text, note=note)', 'text = text + "\\n" + note')),
    _m("ctx.edit.multiedit", "multiedit-as-new-file", "session.py",
       ("        return self._change(PatchFile(path, before, after), note, id)\n\n    def write(",
        "        return self._change(PatchFile(path, None, after), note, id)\n\n    def write(")),
    _m("ctx.edit.capped", "diff-not-capped", "session.py",
       ("block=block, capped=True, note=note)", "block=block, capped=False, note=note)")),
    _m("ctx.edit.capped", "patch-not-capped", "session.py",
       ("block=body, capped=True, note=note)", "block=body, capped=False, note=note)")),
    _m("ctx.same.result", "never-same", "session.py",
       ("if earlier is not None and earlier.text == text:", "if False:")),
    _m("ctx.same.args", "keys-unsorted", "session.py",
       ("[tool, _canonical(args)], sort_keys=True", "[tool, _canonical(args)], sort_keys=False")),
    _m("ctx.same.args", "numbers-by-spelling", "session.py",
       ("    if isinstance(value, float) and value.is_integer():\n        return int(value)\n", "")),
    _m("ctx.stub.identity", "double-slash-kept", "session.py",
       ('.lstrip("/")', '.lstrip("/") if not path.startswith("//") else posixpath.normpath(path)')),
    _m("ctx.same.tools", "every-tool-deduplicated", "session.py",
       ("if tool not in self.config.dedupe_by_result:", "if False:")),
    _m("ctx.same.changed", "compares-with-first", "session.py",
       ("self._listings[key] = _Listing(text, rid)",
        "self._listings.setdefault(key, _Listing(text, rid))")),
    _m("ctx.same.request", "reply-keeps-listings", "session.py",
       ("        self._stub_targets.clear()\n        self._listings.clear()\n",
        "        self._stub_targets.clear()\n")),
    _m("ctx.compact.table", "no-blank-line-after-heading", "session.py",
       ('return "\\n\\n".join(parts) + "\\n\\n"', 'return "\\n".join(parts) + "\\n\\n"')),
    _m("ctx.compact.rows", "keeps-oldest", "session.py",
       ("[-self.config.compaction_rows :]", "[: self.config.compaction_rows]")),
    _m("ctx.compact.rows", "first-read-position", "session.py",
       ("        self._covered.pop(key, None)\n", "")),
    _m("ctx.compact.covers", "reply-forgets-reads", "session.py",
       ("        self._listings.clear()\n        return \"\"",
        "        self._listings.clear()\n        self._covered.clear()\n        return \"\"")),
    _m("ctx.compact.covers", "stubs-covered", "session.py",
       ("                return self._insert(rid, bracket, sentence=sentence, stored=shown)",
        "                self._covered[key] = _FullRead(rid, path, first, last, total, sha)\n"
        "                return self._insert(rid, bracket, sentence=sentence, stored=shown)")),
    _m("ctx.compact.none", "heading-without-reads", "session.py",
       ('        if not covered:\n            return ""',
        '        if not covered:\n            return self._texts.render("compaction_heading")')),
    _m("ctx.compact.forget", "compaction-keeps-stubs", "session.py",
       ("        self._covered.clear()\n        self.reply()", "        self._covered.clear()")),
    _m("ctx.compact.escape", "pipe-unescaped", "session.py",
       ('path=read.path.replace("|", "\\\\|")', "path=read.path")),
)


def load_mutant(mutant: Mutant, workdir: Path) -> types.ModuleType:
    """The reference package with `mutant`'s edits, imported under a name of its own."""
    package = f"mutant_{mutant.rule.replace('.', '_').replace('-', '_')}_{mutant.name.replace('-', '_')}"
    target = workdir / package
    shutil.copytree(REFERENCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    source_file = target / mutant.file
    source = source_file.read_text(encoding="utf-8")
    for old, new in mutant.edits:
        if source.count(old) != 1:
            raise AssertionError(f"{mutant.name}: {old!r} occurs {source.count(old)} times in {mutant.file}")
        source = source.replace(old, new)
    source_file.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(
        package, target / "__init__.py", submodule_search_locations=[str(target)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[package] = module
    spec.loader.exec_module(module)
    return module
