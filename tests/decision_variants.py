"""The decisions of the spec read the other way, and the shortcuts a first implementation takes.

`DECISION_VARIANTS` are the reference's own readings (`ctxconf.reference.READINGS`, kept in each
area's `readings.py`, which the runner compares failing answers with): per decision anchor, the
reference edited to take the other reading of the Decisions table. Each must fail exactly the
cases tagged with that anchor (`test_decisions`). `SHORTCUTS` are wrong ways to look back over
earlier results (the newest candidate instead of the right one, numbering only the steps
without an id); each must fail a case of the rule it breaks. They are `Mutant`s, built by
`load_mutant`.
"""

from __future__ import annotations

from collections.abc import Mapping

from ctxconf.reference import READINGS, Reading

from .mutants import Mutant

_SESSION = "context/session.py"


def _v(anchor: str, name: str, *edits: tuple[str, str]) -> Mutant:
    return Mutant(anchor, name, _SESSION, edits)


DECISION_VARIANTS: Mapping[str, Reading] = READINGS

SHORTCUTS: tuple[Mutant, ...] = (
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
