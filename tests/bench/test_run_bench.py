"""The runner benchmark runs to the end on small sizes, and updates only its own README section.

Timings depend on the machine, so nothing here asserts on them.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.paths import ROOT

pytestmark = pytest.mark.slow  # runs a benchmark

SCRIPT = ROOT / "bench" / "runner_bench.py"


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("runner_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["runner_bench"] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_quick_run_prints_both_tables() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ")]
    labels = [row.split("|")[1].strip() for row in rows]
    assert labels[:7] == [
        "transport",
        "in process",
        "JSON lines",
        "HTTP",
        "workers",
        "-j 1",
        "-j 2",
    ]
    # Then the bundled suite through `ctxconf run`: its slowest cases, by area and name.
    assert labels[7] == "case" and all("/" in label for label in labels[8:]), labels
    assert "passed, 0 failed" in done.stdout and "start-up and report included" in done.stdout
    assert done.stdout.startswith("## Runner\n")
    assert "<!--" not in done.stdout


@pytest.mark.parametrize(
    "before",
    [
        None,
        "# Benchmarks\n\n<!-- reference:start -->\n## Reference\nold\n<!-- reference:end -->\n",
        "# Benchmarks\n\n<!-- runner:start -->\n## Runner\nold figures\n<!-- runner:end -->\n"
        "\n<!-- reference:start -->\n## Reference\nkept\n<!-- reference:end -->\n",
    ],
    ids=["no-readme", "append", "replace"],
)
def test_readme_section_is_replaced_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, before: str | None
) -> None:
    bench = _module()
    readme = tmp_path / "README.md"
    if before is not None:
        readme.write_text(before, encoding="utf-8")
    monkeypatch.setattr(bench, "README", readme)
    section = "<!-- runner:start -->\n## Runner\nnew figures\n<!-- runner:end -->\n"
    bench.write_readme(section)
    bench.write_readme(section)  # a second run changes nothing more
    after = readme.read_text(encoding="utf-8")
    assert after.count("## Runner") == 1 and "new figures" in after
    assert "old figures" not in after
    if before is not None and "## Reference" in before:
        reference = before[before.index("<!-- reference:start -->") :]
        assert reference in after  # the other section, byte for byte
