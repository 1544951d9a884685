"""The cache figures of a probe matrix as one compact table: a row per harness and version, a
cell per scenario with the hit rate, the tokens lost to the harness and the cost.

    python tools/cache_table.py ~/harnesses/reports/matrix.json

The matrix file is what `ctxconf probe --matrix RESULTS… --json matrix.json` writes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ORDER = (
    "basic", "two-days", "midnight", "crash-mid-call", "instructions-edited", "mcp-late",
    "plan-mode", "model-switch", "compact", "long-session", "idle",
)  # fmt: skip


def _cell(figures: dict[str, Any] | None) -> str:
    if figures is None:
        return ""
    rate = figures["hit_rate"]
    shown = "—" if rate is None else f"{rate * 100:.1f} %"
    cost = "no price" if figures["cost_usd"] is None else f"${float(figures['cost_usd']):.4f}"
    lost = figures.get("lost", figures.get("reread", 0))  # "reread" in an older matrix
    return f"{shown} · {lost:,} · {cost}"


def table(matrix: dict[str, Any]) -> str:
    ran = {scenario for row in matrix["rows"] for scenario in row["cache"]}
    scenarios = [s for s in ORDER if s in ran] + sorted(ran - set(ORDER))
    lines = [
        "| harness | version | " + " | ".join(scenarios) + " |",
        "|---|---|" + "---|" * len(scenarios),
    ]
    for row in matrix["rows"]:
        cells = [_cell(row["cache"].get(scenario)) for scenario in scenarios]
        lines.append(f"| {row['harness']} | {row['version']} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tools/cache_table.py MATRIX.json")
    sys.stdout.write(table(json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))))
