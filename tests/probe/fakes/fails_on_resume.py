"""A fake harness whose resume fails at once, having sent nothing: exit 1 and a line on
standard error (a flag its resume does not take)."""

from __future__ import annotations

import sys

from common import Session, variant_main


class FailsOnResume(Session):
    def start(self) -> None:
        if self.resumed:
            sys.exit("error: --resume cannot be used with --trust-folder")


if __name__ == "__main__":
    sys.exit(variant_main(FailsOnResume))
