"""A fake harness (run with `--persist`) whose resumed session answers the call a crash
interrupted with a synthetic result placed after the new user message (`--where after-message`),
which every API refuses; `--where after-call` places it right after the call, its clean twin."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from common import ABORTED, Session, repaired, variant_main


class LateResult(Session):
    def reload(self) -> list[dict[str, Any]]:
        assert self.transcript is not None
        if not self.transcript.is_file():
            return []
        lines = self.transcript.read_text().splitlines()
        messages = [json.loads(line) for line in lines if line.strip()]
        return repaired(messages) if self.options.where == "after-call" else messages

    def unanswered(self) -> list[dict[str, Any]]:
        """The calls of the last message, when the crash left them without results."""
        last = self.messages[-1] if self.messages else {"role": ""}
        return list(last.get("calls") or []) if last["role"] == "assistant" else []

    def user(self, text: str) -> None:
        waiting = self.unanswered()
        super().user(text)
        for call in waiting:
            self.add({"role": "tool", "id": call["id"], "name": call["name"], "text": ABORTED})


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", choices=("after-message", "after-call"), required=True)


if __name__ == "__main__":
    sys.exit(variant_main(LateResult, configure))
