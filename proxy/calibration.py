"""The provider's input tokens beside the cache audit's estimate of the same bodies (the units a
provider hashes, four bytes a token: ctxconf.cache.tokens), per model: the ratio that turns the
probe's estimated figures into a provider's counts (docs/probe.md, "The token estimate").

Only an exchange that ended whole, asked for an answer and carries the provider's input counts;
the estimate is made from the body the record keeps (or, with --hash-only, from its units'
tokens). The ratio is of the sums, so a long request weighs as much as its tokens."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .apis import read_request


@dataclass
class _Sums:
    requests: int = 0
    input: int = 0
    estimate: int = 0


def estimate(line: Mapping[str, Any]) -> int | None:
    """The cache audit's token estimate of the request an exchange line records, or None."""
    request = line.get("request") or {}
    units = request.get("units")
    if isinstance(units, list):
        return sum(int(unit.get("tokens") or 0) for unit in units if isinstance(unit, dict))
    body, shape = request.get("body"), line.get("shape")
    if not isinstance(body, dict) or not isinstance(shape, str):
        return None
    model = line.get("model") if shape == "gemini" else None
    try:
        return read_request(shape, body, model=model if isinstance(model, str) else None).tokens
    except Exception:  # a body shaped unlike its API's: no estimate, nothing to calibrate
        return None


class Calibration:
    """Per model, the provider's input tokens and the estimate's, summed; thread-safe."""

    def __init__(self) -> None:
        self._models: dict[str, _Sums] = {}
        self._lock = threading.Lock()

    def add(self, line: Mapping[str, Any]) -> None:
        usage = line.get("usage") or {}
        given = usage.get("input")
        if line.get("outcome") != "complete" or line.get("asked") == "count":
            return
        if not isinstance(given, int) or given <= 0:
            return
        estimated = estimate(line)
        if not estimated:
            return
        with self._lock:
            sums = self._models.setdefault(str(line.get("model") or "?"), _Sums())
            sums.requests += 1
            sums.input += given
            sums.estimate += estimated

    def data(self) -> dict[str, dict[str, Any]]:
        """The end line's `calibration`: per model, the sums and their ratio."""
        with self._lock:
            return {
                model: {
                    "requests": sums.requests,
                    "input": sums.input,
                    "estimate": sums.estimate,
                    "ratio": round(sums.input / sums.estimate, 4),
                }
                for model, sums in sorted(self._models.items())
            }

    def words(self) -> str:
        """The summary's line: each model's ratio; empty where there is none."""
        shown = [
            f"{model} {row['ratio']:.3f} ({row['input']:,} / {row['estimate']:,} over "
            f"{row['requests']} request{'s' if row['requests'] != 1 else ''})"
            for model, row in self.data().items()
        ]
        return "; ".join(shown)


__all__ = ["Calibration", "estimate"]
