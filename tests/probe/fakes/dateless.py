"""A fake harness that never states a date: no note, nothing in its prompt or tools."""

from __future__ import annotations

import sys

from common import Session, variant_main


class Dateless(Session):
    def note(self, today: str) -> str:
        return ""


if __name__ == "__main__":
    sys.exit(variant_main(Dateless))
