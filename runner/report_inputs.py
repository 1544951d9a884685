"""What a report is made from: a run's results document, and the rules and decisions of the spec
that run used."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ctxconf.specdata.paths import bundled_spec_dir
from ctxconf.spectext.decisions import Decision, load_decisions
from ctxconf.spectext.rules import Rule, load_rules, unreadable_texts

from .results import load_results


def results_document(results: object) -> dict[str, Any]:
    """The plain JSON document of results given as a dict or as an object that converts to one."""
    if isinstance(results, Mapping):
        return dict(results)
    for method in ("to_json", "as_dict"):
        if hasattr(results, method):
            value = getattr(results, method)()
            if isinstance(value, (str, bytes)):
                value = json.loads(value)
            if isinstance(value, Mapping):
                return dict(value)
    raise TypeError(f"cannot read results from {type(results).__name__}: no to_json() or as_dict()")


def _spec_folder(results_doc: Mapping[str, Any]) -> Path:
    """The spec folder the run used: its `spec_dir` if that exists, else the bundled one."""
    spec_dir = (results_doc.get("header") or {}).get("spec_dir")
    folder = Path(spec_dir) if isinstance(spec_dir, str) and spec_dir else None
    if folder is None or not folder.is_dir():
        folder = bundled_spec_dir()
    return folder


def spec_rules_for(results_doc: Mapping[str, Any]) -> dict[str, Rule]:
    """The rules of the spec the run used: from its `spec_dir` if that exists, else the bundled."""
    return load_rules(_spec_folder(results_doc), strict=False)


def unread_spec_texts(results_doc: Mapping[str, Any]) -> list[str]:
    """Why each spec text of the run's spec folder that cannot be read is not in the report."""
    return [error.message for error in unreadable_texts(_spec_folder(results_doc))]


def spec_decisions_for(results_doc: Mapping[str, Any]) -> dict[str, Decision]:
    """The decisions of the spec the run used, with their two readings."""
    return load_decisions(_spec_folder(results_doc))


def load_results_document(path: Path) -> dict[str, Any]:
    """Read a results file, validated by the runner's loader (`ResultsFileError` names the file)."""
    return results_document(load_results(path))
