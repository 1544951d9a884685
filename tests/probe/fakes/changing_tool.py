"""A fake harness whose tool list changes from its third request on, in one part of one
definition (`--part`): the shell tool's description or input schema, the order of the tools,
or a tool's name."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from common import Session, variant_main


class ChangingTool(Session):
    def tools(self) -> list[dict[str, Any]]:
        specs = super().tools()
        if self.requests < 3:
            return specs
        part, shell = self.options.part, specs[-1]
        if part == "description":
            shell["description"] = "Run a shell command, and wait for it to end."
        elif part == "schema":
            shell["schema"]["properties"]["timeout"] = {"type": "integer"}
        elif part == "order":
            specs.reverse()
        else:
            specs.append({"name": "todo", "description": "Keep a list.", "schema": {}})
        return specs


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--part", choices=("description", "schema", "order", "added"))


if __name__ == "__main__":
    sys.exit(variant_main(ChangingTool, configure))
