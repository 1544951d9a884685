"""One import direction: the reference depends on nothing of ours, the runner on the reference's
public surface, the commands on both. Read from the source with `ast`, so no import runs."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Each folder of the checkout and the package name it installs as.
PACKAGES = {"reference": "ctxconf.reference", "runner": "ctxconf.runner", "ctxconf": "ctxconf"}
# What only the command line and the tools built on both layers may import.
TOOLS = (
    "ctxconf.cli",
    "ctxconf.commands",
    "ctxconf.spectools",
    "ctxconf.fuzzing",
    "ctxconf.pytest_plugin",
    "ctxconf.probe",
)


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


def test_the_reference_imports_nothing_of_ours() -> None:
    assert _breaks("reference", lambda name: _within(name, "ctxconf.reference")) == []


def test_the_runner_uses_the_reference_through_its_public_surface_only() -> None:
    def allowed(name: str) -> bool:
        if _within(name, "ctxconf.reference"):
            return name == "ctxconf.reference"
        return not any(_within(name, tool) for tool in TOOLS)

    assert _breaks("runner", allowed) == []


def test_the_shared_helpers_import_no_command() -> None:
    def allowed(name: str) -> bool:
        return not any(_within(name, tool) for tool in ("ctxconf.cli", "ctxconf.commands"))

    helpers = [p for p in _sources("ctxconf") if p.parent == ROOT / "ctxconf"]
    found = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in helpers
        if path.name not in ("cli.py", "__main__.py")
        for line, name in imports(path)
        if not allowed(name)
    ]
    assert found == []


def test_the_direction_test_sees_a_break() -> None:
    planted = "from ctxconf.specfile import read_loop\nfrom ...runner import engine\n"
    path = ROOT / "reference" / "context" / "planted.py"
    found = [name for _, name in imports(path, planted) if _within(name, "ctxconf")]
    assert found == ["ctxconf.specfile", "ctxconf.runner"]


@pytest.mark.parametrize("module", ["ctxconf.reference", "ctxconf.runner.engine"])
def test_embedding_imports_no_test_or_fuzz_dependency(module: str) -> None:
    code = f"import sys, {module}; print(sorted({{'hypothesis', 'pytest'}} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr
