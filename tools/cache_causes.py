"""What broke the cache across probe results, costliest first: for each kind of cause, the
tokens the requests it broke shared with an earlier one the cache still held yet did not read,
priced at the difference between the input and the cache-read price of the request's model.

    python tools/cache_causes.py ~/harnesses/reports/*.json [--prices tools/matrix-prices.json]
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from ctxconf.probe.cache.prices import load_prices

MILLION = Decimal(1_000_000)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("results", nargs="+", type=Path)
    parser.add_argument("--prices", type=Path)
    args = parser.parse_args()
    table = load_prices(args.prices)
    lost: dict[str, int] = defaultdict(int)
    cost: dict[str, Decimal] = defaultdict(Decimal)
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
                if not diagnosis or not diagnosis["lost"]:
                    continue
                kind = " + ".join(sorted({c["kind"] for c in diagnosis["causes"]}))
                lost[kind] += diagnosis["lost"]
                price = table.find(session["provider"], request["model"])
                if price is not None:
                    cost[kind] += diagnosis["lost"] * (price.input - price.cache_read) / MILLION
                runs[kind].add(run)
                anchors[kind] |= {c["anchor"] or "—" for c in diagnosis["causes"]}
    print("| cause | rules | tokens re-read | their cost | runs |")
    print("|---|---|---:|---:|---|")
    for kind in sorted(lost, key=lambda k: (-cost[k], -lost[k])):
        rules = ", ".join(f"`{a}`" for a in sorted(anchors[kind]))
        print(
            f"| {kind} | {rules} | {lost[kind]:,} | ${cost[kind]:.4f} | "
            + ", ".join(sorted(runs[kind]))
            + " |"
        )


if __name__ == "__main__":
    main()
