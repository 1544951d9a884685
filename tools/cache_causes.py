"""What broke the cache across probe results, costliest first: for each kind of cause, the tokens
its requests lost to the harness (what keeping the earlier prefix and marks would have read more)
and what they cost at the price they were billed, from each results file's own figures; beside
them, what lifetimes and rounding took, which no harness could keep.

    python tools/cache_causes.py ~/harnesses/reports/*.json

The results file prices each request at the table it was probed with (`ctxconf probe --prices`);
a request without a price counts its tokens and no dollars.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

# The provider's kinds: what no harness could have read (steps, minimums, lifetimes).
PROVIDERS = {"rounding", "below-minimum", "no-caching", "expired"}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    args = parser.parse_args()
    lost: dict[str, int] = defaultdict(int)
    cost: dict[str, Decimal] = defaultdict(Decimal)
    other: dict[str, int] = defaultdict(int)
    runs: dict[str, set[str]] = defaultdict(set)
    anchors: dict[str, set[str]] = defaultdict(set)
    for path in args.results:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != "ctxconf-probe-results":
            continue  # the matrix file beside them
        run = f"{data['harness']['name']}/{data['scenario']['name']}"
        for session in (data.get("cache") or {}).get("sessions", []):
            for request in session["requests"]:
                diagnosis = request.get("diagnosis")
                if not diagnosis or not (diagnosis["lost"] or diagnosis["lost_other"]):
                    continue
                kinds = {c["kind"] for c in diagnosis["causes"]}
                # The harness's causes name the row; the provider's only where it has none.
                own = kinds - PROVIDERS if diagnosis["lost"] else set()
                kind = " + ".join(sorted(own or kinds))
                lost[kind] += diagnosis["lost"]
                other[kind] += diagnosis["lost_other"]
                cost[kind] += Decimal(diagnosis["lost_usd"] or 0)
                runs[kind].add(run)
                named = own or kinds
                anchors[kind] |= {
                    c["anchor"] or "—" for c in diagnosis["causes"] if c["kind"] in named
                }
    print("| cause | rules | tokens lost | their cost | lost to lifetimes and rounding | runs |")
    print("|---|---|---:|---:|---:|---|")
    for kind in sorted(lost, key=lambda k: (-cost[k], -lost[k], -other[k])):
        rules = ", ".join(f"`{a}`" for a in sorted(anchors[kind]))
        print(
            f"| {kind} | {rules} | {lost[kind]:,} | ${cost[kind]:.4f} | {other[kind]:,} | "
            + ", ".join(sorted(runs[kind]))
            + " |"
        )


if __name__ == "__main__":
    main()
