"""A fake harness that prints a usage line per request, each with that request's cached tokens,
and a session total after it; `--total last-twice` counts the last request twice in that total
(each line right, the sum wrong), `--total right` is its clean twin."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from common import Answer, Session, variant_main


class CountsLastTwice(Session):
    def send(self, base_url: str) -> Answer:
        answer = super().send(base_url)
        if answer.cached is not None:
            print(json.dumps({"type": "request", "usage": {"cached_tokens": answer.cached}}))
        return answer

    def report(self) -> dict[str, Any]:
        total = sum(self.cached)
        if self.options.total == "last-twice" and self.cached:
            total += self.cached[-1]
        return {"type": "result", "usage": {"cached_tokens": total}}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--total", choices=("right", "last-twice"), required=True)


if __name__ == "__main__":
    sys.exit(variant_main(CountsLastTwice, configure))
