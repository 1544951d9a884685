"""Whether a probe played through the recording proxy (`ctxconf probe --record-proxy DIR`) and
the record agree: every exchange's bytes the same received and forwarded, each way; the request
bodies forwarded the very ones the mock received; and `ctxconf audit DIR` giving, request by
request, the probe's read, written and uncached tokens.

    ctxconf probe --harness claude-code --bin ~/harnesses/bin --record-proxy run/ --json r.json
    python tools/proxy_agreement.py r.json run/

Exit 0 when all three agree, 1 when one does not (what differs is printed), 2 for usage."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ctxconf.proxy import read_record

Figures = list[tuple[int, int, int]]


def probe_figures(results: dict[str, Any]) -> Figures:
    """(read, written, uncached) of each request the mock answered with figures, in order."""
    return [
        (r["cache_read"], r["cache_write"], r["uncached"])
        for s in results["cache"]["sessions"]
        for r in s["requests"]
        if r["input_total"]
    ]


def audit_figures(record: Path) -> Figures:
    """`ctxconf audit DIR`'s requests in the order sent."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "audit.json"
        command = [sys.executable, "-m", "ctxconf", "audit", str(record), "--json", str(out)]
        done = subprocess.run(command, check=False, capture_output=True, text=True)
        if not out.exists():
            raise ValueError(f"ctxconf audit {record} wrote no results: {done.stderr.strip()}")
        return figures_of_audit(json.loads(out.read_text(encoding="utf-8")))


def figures_of_audit(doc: dict[str, Any]) -> Figures:
    """(read, written, uncached) of an audit's results' requests in the order sent, the writes
    among the uncached as the probe counts them (a source with no write figure has them there)."""
    rows = sorted((s for d in doc["sessions"] for s in d["timeline"]), key=lambda s: s["time"])
    figures = []
    for row in rows:
        written = (row["written_5m"] or 0) + (row["written_1h"] or 0)
        figures.append((row["read"], written, row["uncached"] + written))
    return figures


def _json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise ValueError(f"{path}: not JSON: {e}") from None


def exchanges(record: Path) -> list[dict[str, Any]]:
    """Every exchange line of the records in `record` (a torn last line left out)."""
    return [
        line
        for path in sorted(record.glob("proxy-*.jsonl"))
        for line in read_record(path).lines
        if line.get("kind") == "exchange"
    ]


def received_by_mock(results: dict[str, Any]) -> Counter[str]:
    counted: Counter[str] = Counter()
    for log in results["logs"]:
        for text in Path(log).read_text(encoding="utf-8").splitlines():
            entry = json.loads(text)
            if entry.get("method") == "POST":
                counted[entry["sha256"]] += 1
    return counted


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    record = Path(argv[1])
    try:
        results = _json(Path(argv[0]), Path(argv[0]).read_text(encoding="utf-8"))
        lines = exchanges(record)
    except (OSError, ValueError) as e:  # a file missing, or not the JSON it should be
        print(f"error: {e}", file=sys.stderr)
        return 2
    if not lines:
        print(f"error: {record}: no proxy record with an exchange in it", file=sys.stderr)
        return 2
    altered = [
        line["n"]
        for line in lines
        for side in ("request", "response")
        if line[side]["sha256_received"] != line[side]["sha256_forwarded"]
    ]
    forwarded = Counter(
        line["request"]["sha256_forwarded"] for line in lines if line["method"] == "POST"
    )
    try:
        probe = probe_figures(results)
        mock = received_by_mock(results)
    except (KeyError, TypeError, AttributeError, OSError, ValueError) as e:
        said = f"not a probe's results file, or its request logs are gone ({e!r})"
        print(f"error: {argv[0]}: {said}", file=sys.stderr)
        return 2
    try:
        audit = audit_figures(record)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    agree = True
    print(f"{len(lines)} exchanges recorded; {len(probe)} requests with figures in the probe")
    if altered:
        agree = False
        print(f"bytes changed on the way in exchanges {sorted(set(altered))}")
    else:
        print("every exchange's bytes forwarded as received, each way")
    if forwarded != mock:
        agree = False
        print("the bodies forwarded are not the ones the mock received")
    else:
        print("the bodies forwarded are the ones the mock received")
    if probe != audit:
        agree = False
        print(f"the audit's figures differ:\n  probe {probe}\n  audit {audit}")
    else:
        print("the audit's read, written and uncached tokens are the probe's, request by request")
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
