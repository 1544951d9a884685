"""A fake harness resumed only by the id of its session: each run prints `session_id` in its
result line and keeps its session under that id; `--session ID` resumes it, and a plain
`--resume` finds nothing to resume (a new session), as a harness without `--continue` does."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from common import Session, Shape, variant_main


class ResumesById(Session):
    def __init__(
        self,
        shape: Shape,
        faults: set[str],
        home: Path,
        resume: bool,
        persist: bool = False,
        options: argparse.Namespace | None = None,
    ) -> None:
        self.store = home / ".fake" / "sessions"
        wanted = options.session if options else None
        if wanted and (self.store / f"{wanted}.json").is_file():
            shutil.copy(self.store / f"{wanted}.json", home / ".fake" / "session.json")
        super().__init__(shape, faults, home, bool(wanted), persist, options)
        self.id = wanted or f"fake-{os.getpid()}"

    def save(self) -> None:
        super().save()
        self.store.mkdir(parents=True, exist_ok=True)
        self.file.replace(self.store / f"{self.id}.json")  # nothing left for a plain --resume

    def report(self) -> dict[str, Any]:
        return {**super().report(), "session_id": self.id}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--session")


if __name__ == "__main__":
    sys.exit(variant_main(ResumesById, configure))
