"""`ctxconf show CASE`: a case's steps and the texts they insert, as a person reads them.

`ctxconf show ANCHOR` (a rule's anchor, such as ctx.stub.range): the rule's text, where the
reference implements it, and the cases that exercise it."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import Any

from ctxconf.specdata.folder import add_spec_argument, announce, report_error, resolve_spec
from ctxconf.specdata.reader import list_case_files, read_case_file, read_loop
from ctxconf.spectext.rules import Rule, load_rules, unreadable_texts
from ctxconf.spectools.anchors import Place, implementations
from ctxconf.spectools.casefile import case_names, find_case
from ctxconf.terminal.textdiff import visible
from ctxconf.userfiles import limits
from ctxconf.userfiles.document import SpecFileError, display

# Texts shown line by line with their whitespace visible; `plan` and `result` are prefix fields.
_LONG_FIELDS = ("content", "text", "before", "after", "note", "plan", "result")
_FILE_FIELDS = ("before", "after", "content")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "case", metavar="CASE", help="the case's name, or a rule's anchor (ctx.stub.range)"
    )
    add_spec_argument(parser)


def _block(text: str, indent: str = "    │ ") -> list[str]:
    lines = text.split("\n")
    shown = [indent + visible(line) for line in lines]
    if text.endswith("\n"):
        shown[-1] = indent + "⏎ (ends with a newline)"
    return shown if text else [indent + "∅ (empty)"]


def _files(files: list[dict[str, str]]) -> list[str]:
    """An apply_patch's files (before/after) or a prefix start's files (content)."""
    out = []
    for file in files:
        out.append(f"  file {file['path']}:")
        for name in _FILE_FIELDS:
            if name in file:
                out.append(f"    {name}:")
                out += _block(file[name], "      │ ")
    return out


def render_case(case: dict[str, Any]) -> list[str]:
    out = [
        case.get("name", "?"),
        "  " + case.get("description", ""),
        "  rules: " + ", ".join(case.get("rules", [])),
    ]
    if case.get("origin"):
        out.append(f"  origin: {case['origin']}")
    if case.get("limits"):
        out.append("  limits: " + limits.dumps(case["limits"]))
    steps, expects = case["steps"], case.get("expect", [])
    for index, (step, expect) in enumerate(zip(steps, expects, strict=False)):
        # Scalars go on the step's line; texts, files and structured fields get a block each.
        fields = {
            k: v
            for k, v in step.items()
            if k not in ("op", *_LONG_FIELDS, "files") and not isinstance(v, (dict, list))
        }
        out.append("")
        scalars = " ".join(f"{k}={limits.dumps(v, ensure_ascii=False)}" for k, v in fields.items())
        out.append(f"step {index}: {step['op']} {scalars}")
        for name, value in step.items():
            if name not in (*_LONG_FIELDS, "files") and isinstance(value, (dict, list)):
                # A response body or a tool list reads better indented than on one long line.
                out.append(f"  {name}:")
                out += _block(limits.dumps(value, indent=2, ensure_ascii=False))
        for name in _LONG_FIELDS:
            if name in step:
                out.append(f"  {name}:")
                out += _block(step[name])
        out += _files(step.get("files", []))
        out.append("  inserts:")
        out += _block(expect, "    ┃ ")
    return out


def render_rule(rule: Rule, places: list[Place], files: list[Path]) -> list[str]:
    """A rule's heading and text, where it is implemented, and its cases by file."""
    where = f"{display(rule.path)}:{rule.line}" if rule.path is not None else ""
    lines = [f"{rule.anchor} {rule.title}" + (f"  ({where})" if where else ""), ""]
    lines += ["    " + line if line else "" for line in rule.text.splitlines()]
    lines += ["", "implemented at:"]
    lines += [f"  {display(place.path)}:{place.line}" for place in places] or ["  (nowhere)"]
    cases = [
        f"  {display(path)}: {case.get('name')}"
        for path in files
        for case in read_case_file(path).data.get("cases", [])
        if rule.anchor in case.get("rules", [])
    ]
    lines += ["", "cases:"] + (cases or ["  (none)"])
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        folder = resolve_spec(args.spec)
        announce(folder, sys.stderr, given=args.spec)
        read_loop(folder)  # a broken spec is refused as every spec command refuses it
        files = list_case_files(folder)
        found = find_case(files, args.case)
        rules = load_rules(folder, strict=False) if found is None else {}
        rule = rules.get(args.case)
        unreadable = unreadable_texts(folder) if found is None and rule is None else []
        if unreadable:  # the rule asked for may be in the text that cannot be read
            raise unreadable[0]
        names = [*case_names(files), *rules] if found is None else []
    except SpecFileError as error:
        return report_error("show", error, sys.stderr)
    if rule is not None:
        print("\n".join(render_rule(rule, implementations().get(rule.anchor, []), files)))
        return 0
    if found is None:
        near = difflib.get_close_matches(args.case, names, n=5, cutoff=0.6)
        near += [n for n in names if args.case in n and n not in near][: 5 - len(near)]
        hint = f"; did you mean: {', '.join(near)}" if near else ""
        print(f"ctxconf show: no case or rule named {args.case!r}{hint}", file=sys.stderr)
        return 2
    print(display(found.file))
    print("\n".join(render_case(found.case)))
    return 0
