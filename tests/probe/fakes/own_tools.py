"""A fake harness whose tools are shaped unlike any the mock maps by name: `read_files` takes a
list of `{path}` objects and `execute` takes a `language` and the `code` (its enum's first entry
is not the shell), as Cline's and Open Interpreter's do. Played only through a profile's
`tools` map."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from common import Session, variant_main


class OwnTools(Session):
    def tools(self) -> list[dict[str, Any]]:
        files = {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        }
        return [
            {
                "name": "read_files",
                "description": "Read files.",
                "schema": {
                    "type": "object",
                    "properties": {"files": files},
                    "required": ["files"],
                },
            },
            {
                "name": "execute",
                "description": "Run code in a language.",
                "schema": {
                    "type": "object",
                    "properties": {
                        "language": {"type": "string", "enum": ["ruby", "shell"]},
                        "code": {"type": "string"},
                    },
                    "required": ["language", "code"],
                },
            },
        ]

    def run_tool(self, call: dict[str, Any]) -> str:
        args = call["args"]
        if call["name"] == "read_files":
            paths = [Path(f.get("path", "")) for f in args.get("files", [])]
            return "".join(p.read_text() if p.is_file() else f"no such file: {p}\n" for p in paths)
        if call["name"] != "execute" or args.get("language") != "shell":
            return f"cannot run {args.get('language')!r}"
        done = subprocess.run(
            ["bash", "-c", args.get("code", "")], capture_output=True, text=True, check=False
        )
        return done.stdout + done.stderr


if __name__ == "__main__":
    sys.exit(variant_main(OwnTools))
