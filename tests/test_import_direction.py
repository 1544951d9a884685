"""One import direction, layer by layer: the reference depends on nothing of ours; the helpers on
the reference; what the ways in share (the cache audit, the API shapes) on those; the ways in
(the runner, the probe, the audit, the proxy) on all of them and never on each other; the tools
on those; the command line on everything. Read from the source with `ast`, so no import runs.
docs/architecture.md draws the same layers."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.paths import ROOT

# Each folder of the checkout and the package name it installs as.
PACKAGES = {
    "reference": "ctxconf.reference",
    "runner": "ctxconf.runner",
    "probe": "ctxconf.probe",
    "audit": "ctxconf.audit",
    "proxy": "ctxconf.proxy",
    "ctxconf": "ctxconf",
}
# The layers, lowest first; a module imports from its own layer and those below it. Within the
# helpers and what the ways in share the order is finer: each imports only those before it (the
# shapes read requests into the cache audit's units; the audit knows no shape).
LAYERS: dict[str, tuple[str, ...]] = {
    "reference": ("ctxconf.reference",),
    "helpers": (
        "ctxconf.errors",
        "ctxconf.exitcodes",
        "ctxconf.interruption",
        "ctxconf.terminal",
        "ctxconf.userfiles",
        "ctxconf.specdata",
        "ctxconf.spectext",
    ),
    "shared by the ways in": ("ctxconf.cache", "ctxconf.shapes"),
    "ways in": ("ctxconf.runner", "ctxconf.probe", "ctxconf.audit", "ctxconf.proxy"),
    "tools": ("ctxconf.spectools", "ctxconf.fuzzing", "ctxconf.pytest_plugin"),
    "command line": ("ctxconf.cli", "ctxconf.commands", "ctxconf.about", "ctxconf.__main__"),
}


def _module(path: Path) -> tuple[str, bool]:
    folder = path.relative_to(ROOT).parts
    parts = [*PACKAGES[folder[0]].split("."), *folder[1:]]
    is_package = parts[-1] == "__init__.py"
    parts = parts[:-1] if is_package else [*parts[:-1], parts[-1].removesuffix(".py")]
    return ".".join(parts), is_package


def imports(path: Path, text: str | None = None) -> Iterator[tuple[int, str]]:
    """Every module `path` (or `text`, as if it were `path`) imports, relative imports made
    absolute, with its line."""
    name, is_package = _module(path)
    package = name if is_package else name.rpartition(".")[0]
    source = path.read_text(encoding="utf-8") if text is None else text
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from ((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            yield node.lineno, base
            # `from ctxconf import reference` imports the subpackage itself.
            yield from (
                (node.lineno, f"{base}.{alias.name}") for alias in node.names if base == "ctxconf"
            )


def _sources(folder: str) -> list[Path]:
    return sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _breaks(folder: str, allowed: Callable[[str], bool]) -> list[str]:
    found = []
    for path in _sources(folder):
        for line, name in imports(path):
            if _within(name, "ctxconf") and not allowed(name):
                found.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    return found


def _owner(name: str) -> tuple[int, int] | None:
    """The layer and the place within it of the package `name` belongs to."""
    for layer, packages in enumerate(LAYERS.values()):
        for place, package in enumerate(packages):
            if _within(name, package):
                return layer, place
    return None


def _upward(module: str, name: str) -> bool:
    """Whether `module` importing `name` goes against the layers."""
    if name in ("ctxconf", "ctxconf.__version__"):  # the package itself: its version
        return False
    here, there = _owner(module), _owner(name)
    if here is None or there is None:
        return True
    if there[0] != here[0]:
        return there[0] > here[0]
    packages = list(LAYERS.values())[here[0]]
    if packages[here[1]] == packages[there[1]]:
        return False
    if list(LAYERS)[here[0]] in ("helpers", "shared by the ways in"):
        return there[1] > here[1]
    return list(LAYERS)[here[0]] == "ways in"  # the runner and the probe stand apart


def _all_sources() -> list[Path]:
    return [path for folder in PACKAGES for path in _sources(folder)]


def test_every_module_belongs_to_a_layer() -> None:
    homeless = [p for p in _all_sources() if _owner(_module(p)[0]) is None]
    assert [str(p.relative_to(ROOT)) for p in homeless] == ["ctxconf/__init__.py"]


def test_no_module_imports_above_its_layer() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in _all_sources()
        for line, name in imports(path)
        if _within(name, "ctxconf") and _upward(_module(path)[0], name)
    ]
    assert found == []


def test_the_reference_imports_nothing_of_ours() -> None:
    assert _breaks("reference", lambda name: _within(name, "ctxconf.reference")) == []


@pytest.mark.parametrize("folder", ["runner", "probe", "proxy"])
def test_the_ways_in_use_the_reference_through_its_public_surface_only(folder: str) -> None:
    def allowed(name: str) -> bool:
        return not _within(name, "ctxconf.reference") or name == "ctxconf.reference"

    assert _breaks(folder, allowed) == []


@pytest.mark.parametrize(
    ("module", "name", "upward"),
    [
        ("ctxconf.userfiles.document", "ctxconf.specdata.reader", True),
        ("ctxconf.specdata.reader", "ctxconf.userfiles.document", False),
        ("ctxconf.runner.engine", "ctxconf.probe.server", True),
        ("ctxconf.probe.harness", "ctxconf.spectools.validate", True),
        ("ctxconf.commands.probe", "ctxconf.probe.command", False),
        ("ctxconf.proxy.apis", "ctxconf.shapes", False),
        ("ctxconf.proxy.forward", "ctxconf.probe.shapes", True),
        ("ctxconf.proxy.apis", "ctxconf.probe.server", True),
        ("ctxconf.audit.sessions", "ctxconf.proxy.record", True),
        ("ctxconf.reference.context", "ctxconf.errors", True),
        ("ctxconf.shapes.registry", "ctxconf.cache.providers", False),
        ("ctxconf.cache.units", "ctxconf.shapes.shape", True),
        ("ctxconf.cache.prices", "ctxconf.probe.errors", True),
        ("ctxconf.cache.prices", "ctxconf.userfiles.limits", False),
        ("ctxconf.probe.server", "ctxconf.shapes", False),
        ("ctxconf.spectext.rules", "ctxconf.cache", True),
        ("ctxconf.newthing", "ctxconf.errors", True),
    ],
)
def test_the_layers_tell_up_from_down(module: str, name: str, upward: bool) -> None:
    assert _upward(module, name) is upward


def test_the_direction_test_sees_a_break() -> None:
    planted = "from ctxconf.specdata.reader import read_loop\nfrom ...runner import engine\n"
    path = ROOT / "reference" / "context" / "planted.py"
    found = [name for _, name in imports(path, planted) if _within(name, "ctxconf")]
    assert found == ["ctxconf.specdata.reader", "ctxconf.runner"]


@pytest.mark.parametrize("module", ["ctxconf.reference", "ctxconf.runner.engine"])
def test_embedding_imports_no_test_or_fuzz_dependency(module: str) -> None:
    code = f"import sys, {module}; print(sorted({{'hypothesis', 'pytest'}} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
