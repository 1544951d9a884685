"""`ctxconf lint`: the parts of the spec agree with each other.

The schemas check each file on its own; this checks them against each other: what the prose
quotes from `loop.json`, the examples against their templates, rule anchors against cases, the
decisions against their table, the schema's ops against cases, ids, the version in every file,
and templates nobody renders.

Each spec text `<area>.md` quotes the `<area>` section of `loop.json` by the names inside it
(`cap.max_lines`, `texts.read_stub`), and any value by its full name (`context.note.date`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ctxconf import reference
from ctxconf.reference import REGISTRY
from ctxconf.specdata.paths import schemas_dir
from ctxconf.specdata.reader import LOOP, list_case_files, read_spec_json, unknown_key
from ctxconf.spectext.decisions import decision_findings
from ctxconf.spectext.finding import Finding
from ctxconf.spectext.rules import SpecRulesError, markdown_files, parse_rules
from ctxconf.spectools.anchors import Place, implementations
from ctxconf.spectools.casefile import read_json
from ctxconf.userfiles.document import read_text_file
from ctxconf.userfiles.jsonpos import value_spans

# `name` (value): the value plain, or a JSON string that may hold parentheses of its own.
_QUOTE = re.compile(r'`([a-z_]+(?:\.[a-z_]+)*)` \(("(?:[^"\\]|\\.)*"|[^()]*)\)')
_VERSION_LINE = re.compile(r"^Spec version: (\S+)\s*$", re.MULTILINE)
_PLACEHOLDER = re.compile(r"\\\{([a-z_]+)\\\}")
_INLINE_RESULT = re.compile(r"`(\[#[^`]*)`")
_RENDER = re.compile(r"""render\(\s*["']([a-z_]+)["']""")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _lookup(section: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    value: Any = section
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return False, None
        value = value[part]
    return True, value


def _same_value(quoted: str, value: Any) -> bool:
    """Whether the text in parentheses states `value`: 40,000 for 40000, a list by its items."""
    quoted = quoted.strip()
    try:
        if json.loads(quoted) == value:  # quoted as JSON: "…", […]
            return True
    except ValueError:
        pass
    if isinstance(value, bool):
        return quoted == str(value).lower()
    if isinstance(value, int):
        return quoted.replace(",", "").replace("\u202f", "").replace(" ", "") == str(value)
    if isinstance(value, list):
        return [part.strip().strip('`"') for part in quoted.split(",")] == [str(v) for v in value]
    if isinstance(value, str):
        unquoted = quoted[1:-1] if len(quoted) >= 2 and quoted[0] == quoted[-1] == '"' else quoted
        # A quote wrapped across lines of the text reads with a space where the line broke.
        unquoted = re.sub(r"[ \t]*\n[ \t]*", " ", unquoted)
        return unquoted.replace("\\n", "\n") == value
    return False


def check_quotes(
    md_path: Path, md: str, section: dict[str, Any], loop: dict[str, Any] | None = None
) -> Iterator[Finding]:
    """Every `name` (value) the text quotes from loop.json states the value loop.json holds.

    A name is looked up in the text's own section, its `texts`, then from the top of loop.json."""
    texts = section.get("texts", {})
    scopes = [section, texts if isinstance(texts, dict) else {}, loop or {}]
    for match in _QUOTE.finditer(md):
        name, quoted = match.groups()
        found, value = False, None
        for scope in scopes:
            found, value = _lookup(scope, name)
            if found:
                break
        if not found:
            if name.split(".")[0] in section or name.split(".")[0] in (loop or {}):
                yield Finding(
                    str(md_path),
                    _line_of(md, match.start()),
                    f"`{name}` is quoted but loop.json has no such value",
                )
            continue
        if not _same_value(quoted, value):
            yield Finding(
                str(md_path),
                _line_of(md, match.start()),
                f"`{name}` is quoted as ({quoted}) but loop.json has "
                f"{json.dumps(value, ensure_ascii=False)}",
            )


def _template_regex(template: str) -> str:
    return _PLACEHOLDER.sub(r".+?", re.escape(template))


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _strings(item)
    elif isinstance(node, dict):
        for item in node.values():
            yield from _strings(item)


def _example_lines(md: str) -> Iterator[tuple[int, str]]:
    """Lines of the examples in fenced code blocks, with their line numbers. A `json` block is
    read as JSON and the lines of its strings are the examples (a list of inserted texts)."""
    block: list[str] = []
    info: str | None = None
    start = 0
    for number, line in enumerate(md.split("\n"), start=1):
        stripped = line.strip()
        if info is None and stripped.startswith("```"):
            info, start, block = stripped[3:].strip(), number, []
        elif info is not None and stripped.startswith("```"):
            if info == "json":
                try:
                    data = json.loads("\n".join(block))
                except ValueError:
                    data = None
                for text in _strings(data):
                    for part in text.split("\n"):
                        yield start + 1, part
            else:
                yield from ((start + 1 + i, part) for i, part in enumerate(block))
            info = None
        elif info is not None:
            block.append(line)
        else:
            for span in _INLINE_RESULT.findall(line):
                yield number, span


def check_examples(md_path: Path, md: str, texts: dict[str, str]) -> Iterator[Finding]:
    """Every example line shaped like an inserted text (a result's bracket, an elided line, a
    remaining-lines note, a table row) matches the template it comes from."""
    one_line = {name: t for name, t in texts.items() if "\n" not in t}
    brackets = [_template_regex(t) for name, t in one_line.items() if name.endswith("bracket")]
    sentences = [
        _template_regex(t)
        for name, t in one_line.items()
        if not name.endswith("bracket") and not t.startswith(("[", "|", "#", "{"))
    ]
    bracket_line = re.compile("(?:" + "|".join(brackets) + ")(?: (?:" + "|".join(sentences) + "))?")
    shaped = {
        "[": [bracket_line, re.compile(_template_regex(texts["elided"]))],
        "(": [re.compile(_template_regex(t)) for n, t in one_line.items() if t.startswith("(")],
        "| ": [re.compile(_template_regex(texts["compaction_row"]))],
    }
    for number, line in _example_lines(md):
        for start, patterns in shaped.items():
            if line.startswith(start) and ("#" in line or start != "| "):
                if "---" in line or line.startswith("| Path"):
                    break
                if not any(p.fullmatch(line) for p in patterns):
                    yield Finding(
                        str(md_path), number, f"example {line!r} matches no template of loop.json"
                    )
                break


def _head(line: str) -> str:
    """How a template line starts: its first two words, or less when a placeholder comes first."""
    literal = line.split("{", 1)[0]
    words = literal.split(" ")
    return " ".join(words[:2]) if len(words) > 2 else literal


def check_template_lines(md_path: Path, md: str, templates: dict[str, str]) -> Iterator[Finding]:
    """Every example line that starts as a template line does (its first two words, 4
    characters at least) matches one of the template lines it starts like."""
    lines = {line for template in templates.values() for line in template.split("\n")}
    heads = [(_head(line), re.compile(_template_regex(line))) for line in lines]
    heads = [(head, pattern) for head, pattern in heads if len(head) >= 4]
    for number, line in _example_lines(md):
        candidates = [pattern for head, pattern in heads if line.startswith(head)]
        if candidates and not any(pattern.fullmatch(line) for pattern in candidates):
            message = f"example {line!r} matches no template of loop.json"
            yield Finding(str(md_path), number, message)


def check_rules_and_cases(spec: Path, cases_by_file: dict[Path, Any]) -> Iterator[Finding]:
    anchors: dict[str, tuple[Path, int]] = {}
    for md in markdown_files(spec):
        try:
            rules = parse_rules(read_text_file(md), md)
        except SpecRulesError as error:
            for problem in error.problems:
                yield Finding(str(md), problem.line, problem.message)
            continue
        for anchor, rule in rules.items():
            anchors[anchor] = (md, rule.line)
    named: set[str] = set()
    for path, (text, doc) in cases_by_file.items():
        spans = value_spans(text)
        for index, case in enumerate(doc.get("cases", [])):
            for r_index, anchor in enumerate(case.get("rules", [])):
                named.add(anchor)
                if anchor not in anchors:
                    start = spans.get(f"/cases/{index}/rules/{r_index}", (0, 0))[0]
                    yield Finding(
                        str(path),
                        _line_of(text, start),
                        f"case {case.get('name')!r} names rule {anchor!r}, "
                        "which no spec text declares",
                    )
    for anchor, (md, line) in anchors.items():
        if anchor not in named:
            yield Finding(str(md), line, f"rule {anchor} has no case")
    yield from check_anchors_in_code(anchors)


def check_anchors_in_code(
    anchors: dict[str, tuple[Path, int]], implemented: dict[str, list[Place]] | None = None
) -> Iterator[Finding]:
    """Each rule is named where the reference implements it (`# rule: ANCHOR`), and each name
    there is a rule of the spec."""
    implemented = implementations() if implemented is None else implemented
    for anchor, (md, line) in anchors.items():
        if anchor not in implemented:
            message = f"rule {anchor} is implemented nowhere in the reference (# rule: {anchor})"
            yield Finding(str(md), line, message)
    for anchor, places in implemented.items():
        if anchor not in anchors:
            for place in places:
                message = f"'# rule: {anchor}' names a rule the spec does not declare"
                yield Finding(str(place.path), place.line, message)


def _op_enums(defs: dict[str, Any]) -> dict[str, str]:
    """Each area's enum of step ops in its schema's $defs: the enum of exactly its ops."""
    return {
        name: key
        for name, area in REGISTRY.items()
        for key, definition in defs.items()
        if isinstance(definition, dict) and set(definition.get("enum", ())) == area.ops
    }


def check_decisions(spec: Path, cases_by_file: dict[Path, Any]) -> Iterator[Finding]:
    """Each rule marked as a decision has its row in a Decisions table, each row such a rule,
    and each row lists exactly the cases tagged with its anchor."""
    cases = [
        (str(case.get("name")), [str(anchor) for anchor in case.get("rules", [])])
        for _, doc in cases_by_file.values()
        for case in doc.get("cases", [])
    ]
    yield from decision_findings(spec, cases)


def check_ops(cases_by_file: dict[Path, Any]) -> Iterator[Finding]:
    """Every op the schema allows in an area is used by a case of that area."""
    used: dict[str, set[str]] = {}
    for _, doc in cases_by_file.values():
        ops = used.setdefault(str(doc.get("area")), set())
        ops.update(
            str(step.get("op")) for case in doc.get("cases", []) for step in case.get("steps", [])
        )
    for schema_path in sorted((schemas_dir() / "areas").glob("*.schema.json")):
        text = schema_path.read_text(encoding="utf-8")
        schema = json.loads(text)
        spans = value_spans(text)
        for area, name in _op_enums(schema.get("$defs", {})).items():
            if area not in used:
                continue
            line = _line_of(text, spans.get(f"/$defs/{name}/enum", (0, 0))[0])
            for op in schema.get("$defs", {}).get(name, {}).get("enum", []):
                if op not in used[area]:
                    yield Finding(str(schema_path), line, f"{area} op {op!r} has no case")


def check_ids(cases_by_file: dict[Path, Any]) -> Iterator[Finding]:
    for path, (text, doc) in cases_by_file.items():
        spans = value_spans(text)
        record = REGISTRY.get(str(doc.get("area")))
        form = record.id_form if record is not None else None
        for index, case in enumerate(doc.get("cases", [])):
            seen: set[str] = set()
            for s_index, step in enumerate(case.get("steps", [])):
                result_id = step.get("id")
                if result_id is None:
                    continue
                line = _line_of(text, spans.get(f"/cases/{index}/steps/{s_index}/id", (0, 0))[0])
                if form is not None and not (
                    isinstance(result_id, str) and re.match(form[0], result_id)
                ):
                    yield Finding(str(path), line, f"id {result_id!r} is not {form[1]}")
                elif result_id in seen:
                    yield Finding(
                        str(path),
                        line,
                        f"id {result_id} is given twice in case {case.get('name')!r}",
                    )
                seen.add(str(result_id))


def check_versions(
    spec: Path, loop_text: str, loop: dict[str, Any], cases_by_file: dict[Path, Any]
) -> Iterator[Finding]:
    version = loop.get("version")
    for md in markdown_files(spec):
        md_text = read_text_file(md)
        match = _VERSION_LINE.search(md_text)
        if match is None:
            yield Finding(str(md), 1, "no 'Spec version: X' line")
        elif match.group(1) != version:
            yield Finding(
                str(md),
                _line_of(md_text, match.start()),
                f"spec version {match.group(1)} differs from loop.json's {version}",
            )
    for path, (text, doc) in cases_by_file.items():
        if doc.get("version") != version:
            start = value_spans(text).get("/version", (0, 0))[0]
            yield Finding(
                str(path),
                _line_of(text, start),
                f"version {doc.get('version')} differs from loop.json's {version}",
            )


# Where loop.json keeps templates, every area's sections once; a number among them (such as
# context.note.mcp_wait_ms) is not one.
_TEMPLATE_SECTIONS = tuple(dict.fromkeys(s for area in REGISTRY.values() for s in area.texts))


def _section(loop: dict[str, Any], area: str, key: str) -> dict[str, Any]:
    owner = loop.get(area)
    found = owner.get(key) if isinstance(owner, dict) else None
    return found if isinstance(found, dict) else {}


def check_templates_used(
    loop_path: Path, loop_text: str, loop: dict[str, Any]
) -> Iterator[Finding]:
    rendered: set[str] = set()
    for source in Path(reference.__file__).parent.rglob("*.py"):
        rendered.update(_RENDER.findall(source.read_text(encoding="utf-8")))
    spans = value_spans(loop_text)
    for area, key in _TEMPLATE_SECTIONS:
        for name, value in _section(loop, area, key).items():
            if isinstance(value, str) and name not in rendered:
                start = spans.get(f"/{area}/{key}/{name}", (0, 0))[0]
                yield Finding(
                    str(loop_path),
                    _line_of(loop_text, start),
                    f"template {name!r} is rendered nowhere in the reference",
                )


def _area_templates(loop: dict[str, Any], area: str) -> dict[str, str]:
    """The templates an area's examples show: every texts section the area renders."""
    record = REGISTRY.get(area)
    sections = record.texts if record is not None else ((area, "texts"),)
    return {
        name: template
        for owner, key in sections
        for name, template in _section(loop, owner, key).items()
        if isinstance(template, str)
    }


def lint_spec(spec: Path) -> list[Finding]:
    """Every disagreement between the parts of the spec folder `spec`, sorted by file and line."""
    loop_path = spec / "loop.json"
    # Held to its schema but for unknown keys: an unknown template is a finding of its own here.
    loop_document = read_spec_json(loop_path, LOOP, allow=unknown_key)
    loop_text = loop_document.text
    loop: dict[str, Any] = loop_document.data
    cases_by_file: dict[Path, Any] = {}
    for path in list_case_files(spec):
        cases_by_file[path] = read_json(path)
    for md_path in markdown_files(spec):
        read_text_file(md_path)  # refused here, with its place, before any check reads it
    findings: list[Finding] = []
    for md_path in markdown_files(spec):
        md = read_text_file(md_path)
        area = md_path.stem  # context.md is the text of loop.json's context, and so on
        found = loop.get(area)
        section: dict[str, Any] = found if isinstance(found, dict) else {}
        findings += check_quotes(md_path, md, section, loop)
        record = REGISTRY.get(area)
        if record is not None and record.examples == "examples":
            owner, key = record.texts[0]
            findings += check_examples(md_path, md, _section(loop, owner, key))
        else:
            findings += check_template_lines(md_path, md, _area_templates(loop, area))
    findings += check_rules_and_cases(spec, cases_by_file)
    findings += check_decisions(spec, cases_by_file)
    findings += check_ops(cases_by_file)
    findings += check_ids(cases_by_file)
    findings += check_versions(spec, loop_text, loop, cases_by_file)
    findings += check_templates_used(loop_path, loop_text, loop)
    return sorted(set(findings))
