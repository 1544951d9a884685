"""A fake harness slow to reach its first request: its first process waits `--wait` seconds
(a loaded machine, a big program loading) before it sends anything."""

from __future__ import annotations

import argparse
import sys
import time

from common import Session, variant_main


class SlowStart(Session):
    def start(self) -> None:
        if not self.resumed:
            time.sleep(self.options.wait)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait", type=float, required=True)


if __name__ == "__main__":
    sys.exit(variant_main(SlowStart, configure))
