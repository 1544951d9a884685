"""Rules parsed from the spec text: ``### `anchor` Title`` headings and the text under each."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.rules import SpecRulesError, load_rules, parse_rules

FIXTURE = """\
# Title

Intro text.

### `ctx.stub.range` Lines outside every read

First paragraph.

```
### `ctx.fake.rule` inside a fence is text
## Nor is this a heading
```

Last paragraph.

## A section

Section text, not part of any rule.

### `ctx.cap.over` When a text is capped
Right under its heading.
### A plain heading ends the rule above
"""


def test_rules_in_order_with_titles_lines_and_text() -> None:
    rules = parse_rules(FIXTURE)
    assert list(rules) == ["ctx.stub.range", "ctx.cap.over"]
    first = rules["ctx.stub.range"]
    assert (first.title, first.line) == ("Lines outside every read", 5)
    assert first.text.startswith("First paragraph.\n\n```\n### `ctx.fake.rule`")
    assert first.text.endswith("Last paragraph.")
    assert "Section text" not in first.text
    assert rules["ctx.cap.over"].text == "Right under its heading."
    assert rules["ctx.cap.over"].line == 20


BAD = [
    ("duplicate", "### `ctx.a.b` One\n\n### `ctx.a.b` Two\n", "line 3: rule ctx.a.b already"),
    ("no-title", "### `ctx.a.b`\n", "line 1: heading is not of the form"),
    ("upper-case", "### `Ctx.A` Title\n", "line 1: heading is not of the form"),
    ("bad-character", "### `ctx.a_b` Title\n", "line 1: heading is not of the form"),
    ("wrong-level", "## `ctx.a.b` Title\n", "line 1: heading is not of the form"),
]


@pytest.mark.parametrize(("text", "message"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_problems_are_reported_with_their_line(text: str, message: str) -> None:
    with pytest.raises(SpecRulesError) as caught:
        parse_rules(text)
    assert message in str(caught.value)
    assert caught.value.code == "spec-rules" and caught.value.hint


def test_other_code_headings_are_no_rules_and_no_problems() -> None:
    assert parse_rules("## 4. `recall`\n### `recall` and its window\ntext\n") == {}


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(SpecRulesError) as caught:
        parse_rules("### `ctx.a.b` One\n### `ctx.a.b` Two\n### `Bad.x` x\n")
    assert [p.line for p in caught.value.problems] == [2, 3]


def test_load_rules_reads_every_top_level_markdown_file(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("### `ctx.b.one` B\nb text\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("### `ctx.a.one` A\na text\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "c.md").write_text("### `ctx.c.one` C\n", encoding="utf-8")
    rules = load_rules(tmp_path)
    assert list(rules) == ["ctx.a.one", "ctx.b.one"]
    assert rules["ctx.b.one"].path == tmp_path / "b.md"


def test_a_rule_declared_in_two_files(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("### `ctx.a.one` First\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("x\n### `ctx.a.one` Second\n", encoding="utf-8")
    with pytest.raises(SpecRulesError) as caught:
        load_rules(tmp_path)
    assert f"{tmp_path / 'b.md'}:2: rule ctx.a.one already declared in" in str(caught.value)
    assert load_rules(tmp_path, strict=False)["ctx.a.one"].title == "First"


def test_bundled_spec_declares_every_rule_its_cases_name() -> None:
    spec = bundled_spec_dir()
    rules = load_rules(spec)
    cases = json.loads((spec / "conformance" / "context.json").read_text(encoding="utf-8"))
    named = {anchor for case in cases["cases"] for anchor in case["rules"]}
    assert named <= set(rules), sorted(named - set(rules))
