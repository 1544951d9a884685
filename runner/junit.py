"""The results as JUnit XML, as CI systems read it: one testsuite per area, one testcase per case.

A failed case (fail, equivalent-diff, unexpected-pass) is a <failure> with the diffs in its text;
an implementation that misbehaved (error, timeout, crash) an <error>; skipped and expected
failures are <skipped>, as pytest writes an xfail.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from ctxconf.userfiles.atomic import write_text_atomic

from .display import describe_failure
from .results import CaseResult, Results

# Characters XML 1.0 cannot carry at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _xml_text(text: str) -> str:
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _testcase(case: CaseResult) -> ET.Element:
    element = ET.Element(
        "testcase", classname=case.area, name=case.name, time=f"{case.duration:.6f}"
    )
    if case.verdict in ("fail", "equivalent-diff", "unexpected-pass"):
        failed = [s for s in case.steps if s.verdict in ("fail", "equivalent-diff")]
        if case.verdict == "unexpected-pass":
            message = f"unexpected pass: {case.message}"
        else:
            where = ", ".join(str(s.index) for s in failed)
            message = f"{case.verdict}: step {where} ({', '.join(case.rules)})"
        child = ET.SubElement(element, "failure", message=_xml_text(message), type=case.verdict)
        child.text = _xml_text(describe_failure(case))
    elif case.verdict in ("error", "timeout", "crash"):
        child = ET.SubElement(element, "error", message=_xml_text(case.message), type=case.verdict)
        child.text = _xml_text(case.message)
    elif case.verdict == "skipped":
        ET.SubElement(element, "skipped", message=_xml_text(case.message), type="skipped")
    elif case.verdict == "expected-failure":
        reason = case.expected_failure.reason if case.expected_failure else case.message
        child = ET.SubElement(
            element,
            "skipped",
            message=_xml_text(f"expected failure: {reason}"),
            type="expected-failure",
        )
        if case.message:  # what really happened, kept beside the reason
            child.text = _xml_text(case.message)
    if case.stderr:
        ET.SubElement(element, "system-err").text = _xml_text(case.stderr)
    return element


def junit_tree(results: Results) -> ET.ElementTree:
    header = results.header
    root = ET.Element("testsuites", name="ctxconf")
    areas: dict[str, list[CaseResult]] = {}
    for case in results.cases:
        areas.setdefault(case.area, []).append(case)
    counts: dict[str, int] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for area, cases in areas.items():
        suite_counts: dict[str, int] = {
            "tests": len(cases),
            "failures": sum(
                c.verdict in ("fail", "equivalent-diff", "unexpected-pass") for c in cases
            ),
            "errors": sum(c.verdict in ("error", "timeout", "crash") for c in cases),
            "skipped": sum(c.verdict in ("skipped", "expected-failure") for c in cases),
        }
        suite = ET.SubElement(
            root,
            "testsuite",
            {key: str(value) for key, value in suite_counts.items()},
            name=area,
            timestamp=header.started,
            time=f"{sum(c.duration for c in cases):.6f}",
        )
        properties = ET.SubElement(suite, "properties")
        for name, text in (
            ("impl", header.impl),
            ("implementation", f"{header.implementation.name} {header.implementation.version}"),
            ("spec_version", header.spec_version),
        ):
            ET.SubElement(properties, "property", name=name, value=_xml_text(text))
        suite.extend(_testcase(case) for case in cases)
        for key, value in suite_counts.items():
            counts[key] += value
    root.attrib.update({key: str(value) for key, value in counts.items()})
    root.set("time", f"{results.footer.duration:.6f}")
    tree = ET.ElementTree(root)
    ET.indent(tree)
    return tree


def write_junit(results: Results, path: Path) -> None:
    """The JUnit XML of `results`, written by the one writer (atomically, to a regular file)."""
    root = junit_tree(results).getroot()
    assert root is not None  # junit_tree makes its tree around a root
    text = ET.tostring(root, encoding="unicode")
    write_text_atomic(path, "<?xml version='1.0' encoding='utf-8'?>\n" + text)
