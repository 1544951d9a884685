"""A fake harness whose first request is a body no server should read (`--kind`): JSON nested
100,000 deep, or a small gzip, deflate or br body that inflates to 100 MB. It reports the
answer's status on standard error and goes on with the body it should have sent."""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import urllib.error
import zlib
from typing import Any

from common import Session, variant_main

INFLATED_BYTES = 100 * 1024 * 1024


def bomb(kind: str) -> tuple[bytes, dict[str, str]]:
    if kind == "deep":
        return b"[" * 100_000 + b"]" * 100_000, {}
    filler = b'{"a": "' + b" " * (INFLATED_BYTES - 10) + b'"}'
    if kind == "gzip":
        return gzip.compress(filler, 9), {"Content-Encoding": "gzip"}
    if kind == "deflate":
        return zlib.compress(filler, 9), {"Content-Encoding": "deflate"}
    import brotli  # the test that asks for br skips without it

    return brotli.compress(filler, quality=1), {"Content-Encoding": "br"}


class BadBody(Session):
    sent_bad = False

    def encode(self, body: dict[str, Any]) -> tuple[bytes, dict[str, str]]:
        if self.sent_bad or self.resumed:
            return super().encode(body)
        self.sent_bad = True
        return bomb(self.options.kind)

    def post(self, base_url: str, body: dict[str, Any]) -> Any:
        try:
            return super().post(base_url, body)
        except urllib.error.HTTPError as e:
            print(f"HTTP {e.code}: {json.load(e)['error']['message']}", file=sys.stderr)
            return super().post(base_url, body)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--kind", choices=("deep", "gzip", "deflate", "br"), required=True)


if __name__ == "__main__":
    sys.exit(variant_main(BadBody, configure))
