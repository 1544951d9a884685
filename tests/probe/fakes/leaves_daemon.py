"""A fake harness that starts a daemon of its own in a new session (`setsid`, as a hub, a tmux
server or a self-updater does), which would outlive it; `--clear-env` starts it with an empty
environment, as some daemons do."""

from __future__ import annotations

import argparse
import subprocess
import sys

from common import Session, variant_main


class LeavesDaemon(Session):
    def start(self) -> None:
        env = {} if self.options.clear_env else None
        subprocess.Popen(
            ["sleep", "600"],
            start_new_session=True,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clear-env", action="store_true")


if __name__ == "__main__":
    sys.exit(variant_main(LeavesDaemon, configure))
