"""A fake harness that will not run before a login has written `$HOME/.fake/login` (as a
harness configured by a command of its own is), exiting 1 with a line on standard error."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from common import Session, variant_main


class NeedsLogin(Session):
    def start(self) -> None:
        if not (Path(os.environ["HOME"]) / ".fake" / "login").is_file():
            sys.exit("error: not logged in (run the login first)")


if __name__ == "__main__":
    sys.exit(variant_main(NeedsLogin))
