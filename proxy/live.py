"""What the console shows while the proxy runs: a line per exchange as it ends (its number,
status, model, the provider's input, read, written and uncached tokens, its time, how it ended
when not whole, and a watcher's words), and at the end a summary of the run and, per model, the
ratio of the provider's input tokens to the cache audit's estimate."""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, TextIO

from .calibration import Calibration
from .watcher import Watcher


def _count(value: Any) -> str:
    return "-" if not isinstance(value, int) else f"{value:,}"


def uncached(usage: dict[str, Any]) -> int | None:
    """The input neither read from the cache nor written to it (where the API gives no write
    figure, whatever was written is in it too); None without the input and the read."""
    whole, read, written = usage.get("input"), usage.get("read"), usage.get("written")
    if not isinstance(whole, int) or not isinstance(read, int):
        return None
    return max(whole - read - (written if isinstance(written, int) else 0), 0)


def exchange_line(data: dict[str, Any]) -> str:
    usage = data.get("usage") or {}
    response = data.get("response") or {}
    status = response.get("status")
    end = (data.get("time") or {}).get("end")
    parts = [
        f"#{data['n']}",
        str(status) if status is not None else "---",
        data.get("model") or data.get("path") or "?",
        f"in {_count(usage.get('input'))}",
        f"read {_count(usage.get('read'))}",
        f"written {_count(usage.get('written'))}",
        f"uncached {_count(uncached(usage))}",
        f"{end:.2f} s" if isinstance(end, (int, float)) else "- s",
    ]
    if data.get("outcome") != "complete":
        said = f": {data['error']}" if data.get("error") else ""
        parts.append(f"[{data.get('outcome')}{said}]")
    return "  ".join(parts)


class Live:
    """The console's lines, and the tally the summary is made of."""

    def __init__(self, out: TextIO, watcher: Watcher | None = None) -> None:
        self.out = out
        self.watcher = watcher
        self.outcomes: Counter[str] = Counter()
        self.tokens: Counter[str] = Counter()
        self.calibration = Calibration()
        self._lock = threading.Lock()

    def _watched(self, data: dict[str, Any]) -> str:
        if self.watcher is None:
            return ""
        try:
            return self.watcher.exchange(data)
        except Exception as e:  # a view that fails costs its words, never the record
            return f"[the live view failed: {type(e).__name__}: {e}]"

    def show(self, data: dict[str, Any]) -> None:
        self.calibration.add(data)
        words = self._watched(data)
        with self._lock:
            self.outcomes[str(data.get("outcome"))] += 1
            for name in ("input", "read", "written", "output"):
                value = (data.get("usage") or {}).get(name)
                if isinstance(value, int):
                    self.tokens[name] += value
            line = exchange_line(data) + (f"  | {words}" if words else "")
            print(line, file=self.out, flush=True)

    def summary(self) -> str:
        with self._lock:
            total = sum(self.outcomes.values())
            ended = ", ".join(f"{n} {name}" for name, n in sorted(self.outcomes.items()))
            tokens = self.tokens
            share = f" ({tokens['read'] / tokens['input']:.0%} read)" if tokens["input"] else ""
            return (
                f"{total} request{'s' if total != 1 else ''}"
                + (f" ({ended})" if ended else "")
                + f"; input {tokens['input']:,} tokens{share}, read {tokens['read']:,}, "
                f"written {tokens['written']:,}, output {tokens['output']:,}"
            )

    def counts(self) -> dict[str, Any]:
        with self._lock:
            return {
                "exchanges": sum(self.outcomes.values()),
                "outcomes": dict(self.outcomes),
                "tokens": dict(self.tokens),
                "calibration": self.calibration.data(),
            }


__all__ = ["Live", "exchange_line"]
