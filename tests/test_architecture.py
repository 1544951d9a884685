"""docs/architecture.md is the map of the tree: it names every top-level folder, every area of
`reference/areas.py`, every module of the ways in and of what they share, every helper
package, and every path it names exists."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

DOC = ROOT / "docs" / "architecture.md"
# The folders whose every module the page names: the ways in, and what they share.
NAMED_MODULES = ("runner", "probe", "audit", "proxy", "ctxconf/cache", "ctxconf/shapes")
# A path the page names: `reference/areas.py`, `probe/checks/`, `ctxconf/userfiles/atomic.py`.
_PATH = re.compile(r"(?<![\w./<-])((?:[a-z_]+/)+(?:[a-z_]+\.(?:py|md|json|sh))?)(?![\w<])")


def _folders() -> tuple[str, ...]:
    """`FOLDERS` of reference/areas.py, read from its source."""
    tree = ast.parse((ROOT / "reference" / "areas.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "FOLDERS" for t in node.targets
        ):
            return tuple(ast.literal_eval(node.value))
    raise AssertionError("reference/areas.py has no FOLDERS")


def _top_folders() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files"], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.splitlines()
    return sorted({p.split("/")[0] for p in listed if "/" in p and not p.startswith(".")})


def _modules(folder: str) -> list[str]:
    return sorted(
        str(p.relative_to(ROOT / folder))
        for p in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in p.parts and p.name != "__init__.py"
    )


def unnamed(doc: str) -> list[str]:
    """What the tree has and the page does not name."""
    missing = [f"{name}/" for name in _top_folders() if f"{name}/" not in doc]
    folders = _folders()
    drawn = re.search(r"FOLDERS = (\([^)]*\))", doc)
    if drawn is None or ast.literal_eval(drawn.group(1)) != folders:
        missing.append(f"FOLDERS = {folders!r}")
    missing += [f"reference/{area}/" for area in folders if f"  {area}/ " not in doc]
    for folder in NAMED_MODULES:
        for module in _modules(folder):
            name = Path(module).name
            if not re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", doc):
                missing.append(f"{folder}/{module}")
    helpers = sorted(p.parent.name for p in (ROOT / "ctxconf").glob("*/__init__.py"))
    missing += [f"ctxconf/{h}/" for h in helpers if f"{h}/" not in doc]
    return missing


def named_but_absent(doc: str) -> list[str]:
    """Paths the page names that the tree does not have (resolved from the root, or inside one
    of the folders the page lists them under)."""
    bases = [ROOT, ROOT / "ctxconf", ROOT / "reference", ROOT / "runner", ROOT / "probe"]
    bases += [ROOT / "audit", ROOT / "proxy"]
    bases += [ROOT / "ctxconf" / "cache", ROOT / "ctxconf" / "shapes"]
    bases += [ROOT / "tests", ROOT / "spec", ROOT / "probe" / "data"]
    bases += [ROOT / "reference" / area for area in _folders()]
    absent = []
    for found in sorted(set(_PATH.findall(doc))):
        if not any((base / found).exists() for base in bases):
            absent.append(found)
    return absent


def test_the_page_names_every_part_of_the_tree() -> None:
    assert unnamed(DOC.read_text(encoding="utf-8")) == []


def test_every_path_the_page_names_exists() -> None:
    assert named_but_absent(DOC.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    ("edit", "found"),
    [
        (lambda d: d.replace("probe/", "prob/"), "probe/"),
        (lambda d: d.replace('"history")', '"hist")'), f"FOLDERS = {_folders()!r}"),
        (lambda d: d.replace("mapping.py", "map.py"), "probe/mapping.py"),
        (lambda d: d.replace("counterfactual.py", "whatif.py"), "ctxconf/cache/counterfactual.py"),
        (lambda d: d.replace("userfiles/", "files/"), "ctxconf/userfiles/"),
    ],
    ids=["top-folder", "area", "probe-module", "shared-module", "helper"],
)
def test_a_page_that_misses_a_part_is_caught(edit: object, found: str) -> None:
    doc = edit(DOC.read_text(encoding="utf-8"))  # type: ignore[operator]
    assert found in unnamed(doc)


def test_a_page_that_names_a_gone_file_is_caught() -> None:
    doc = DOC.read_text(encoding="utf-8") + "\nthe old reader, `ctxconf/specfile.py`\n"
    assert named_but_absent(doc) == ["ctxconf/specfile.py"]
