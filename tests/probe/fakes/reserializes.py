"""A fake harness that sends the model's call arguments back as they came while it runs, and a
resumed session that writes them again from the parsed object (`--style compact`, as
JavaScript's JSON.stringify does, or `spaced`, as Python's json.dumps does)."""

from __future__ import annotations

import argparse
import json
import sys

from common import Session, variant_main

SEPARATORS = {"compact": (",", ":"), "spaced": (", ", ": ")}


class Reserializes(Session):
    def start(self) -> None:
        if not self.resumed:
            return
        separators = SEPARATORS[self.options.style]
        for message in self.messages:
            for call in message.get("calls") or []:
                call["raw"] = json.dumps(call["args"], separators=separators)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--style", choices=sorted(SEPARATORS), required=True)


if __name__ == "__main__":
    sys.exit(variant_main(Reserializes, configure))
