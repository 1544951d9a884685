"""A fake harness that refuses a command that waits (`tail -f`) and answers at once, so the
turn ends before a kill meant for the middle of that call can come."""

from __future__ import annotations

import sys
from typing import Any

from common import Session, variant_main


class FinishesEarly(Session):
    def run_tool(self, call: dict[str, Any]) -> str:
        if "tail -f" in str(call["args"]):
            return "Blocked: a command that waits forever is not run."
        return super().run_tool(call)


if __name__ == "__main__":
    sys.exit(variant_main(FinishesEarly))
