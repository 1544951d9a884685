"""A fake harness that starts a daemon of its own in a new session (`setsid`, as a hub, a tmux
server or a self-updater does), which would outlive it; `--clear-env` starts it with an empty
environment, as some daemons do. `--tag DIGITS` makes its command line its own (`sleep 600
0.DIGITS` sleeps as long), so that a test can end it by itself when nothing else can."""

from __future__ import annotations

import argparse
import subprocess
import sys

from common import Session, variant_main


class LeavesDaemon(Session):
    def start(self) -> None:
        env = {} if self.options.clear_env else None
        subprocess.Popen(
            ["sleep", "600", f"0.{self.options.tag}"],
            start_new_session=True,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clear-env", action="store_true")
    parser.add_argument("--tag", default="0")


if __name__ == "__main__":
    sys.exit(variant_main(LeavesDaemon, configure))
