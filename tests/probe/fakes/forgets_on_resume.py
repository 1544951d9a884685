"""A fake harness that ignores its resume flag: every process starts a new session."""

from __future__ import annotations

import sys

from common import Session, variant_main


class ForgetsOnResume(Session):
    def start(self) -> None:
        self.messages, self.told, self.reads = [], None, {}


if __name__ == "__main__":
    sys.exit(variant_main(ForgetsOnResume))
