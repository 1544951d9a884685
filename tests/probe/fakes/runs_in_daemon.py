"""A fake harness that runs each shell command in a process of a new session (as a harness
that types its commands into a tmux server does), and waits for it to finish; `--clear-env`
starts that process with an empty environment."""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from common import Session, variant_main


class RunsInDaemon(Session):
    def run_tool(self, call: dict[str, Any]) -> str:
        command = call["args"].get(self.shape.shell_tool[1])
        if not isinstance(command, str):  # a read, or a command as argv: as the base fake
            return super().run_tool(call)
        folder = Path(tempfile.mkdtemp())
        out, done = folder / "out", folder / "done"
        script = f"{command} > {out} 2>&1; echo $? > {done}.partial; mv {done}.partial {done}"
        subprocess.Popen(
            ["/bin/bash", "-c", script],
            start_new_session=True,
            env={"PATH": "/usr/bin:/bin"} if self.options.clear_env else None,
            stdin=subprocess.DEVNULL,
        )
        while not done.exists():
            time.sleep(0.05)
        return out.read_text()


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clear-env", action="store_true")


if __name__ == "__main__":
    sys.exit(variant_main(RunsInDaemon, configure))
