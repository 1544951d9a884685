"""A fake harness that writes the date of the run where it must not be: in its system prompt
or in its shell tool's description (`--where`), in one of the forms harnesses use (`--form`),
made once per session."""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from typing import Any

from common import Session, now, variant_main

# Each form as harnesses write it, for a moment of the run.
FORMS = {
    "iso": lambda t: t.date().isoformat(),
    "iso-microseconds": lambda t: t.isoformat(timespec="microseconds"),
    "us": lambda t: f"{t.month}/{t.day}/{t.year}",
    "us-padded": lambda t: t.strftime("%m/%d/%Y"),
    "european": lambda t: t.strftime("%d.%m.%Y"),
    "two-digit-year": lambda t: t.strftime("%m/%d/%y"),
    "long": lambda t: f"{t:%B} {t.day}, {t.year}",
    "long-padded-weekday": lambda t: t.strftime("%A, %B %d, %Y"),
    "short": lambda t: t.strftime("%b %d %Y"),
    "day-first": lambda t: f"{t.day} {t:%B %Y}",
    "ctime": lambda t: t.strftime("%a %b ") + f"{t.day:>2}" + t.strftime(" %H:%M:%S %Y"),
    "javascript": lambda t: t.strftime("%a %b %d %Y %H:%M:%S GMT+0000"),
    "rfc2822": lambda t: t.strftime("%a, %d %b %Y %H:%M:%S +0000"),
}


def written(form: str, moment: datetime) -> str:
    return str(FORMS[form](moment))


class Dated(Session):
    def make_system(self, request: int) -> str:
        system = super().make_system(request)
        if self.options.where == "prompt":
            system += f"\nThe session started on {written(self.options.form, now())}."
        return system

    def tools(self) -> list[dict[str, Any]]:
        specs = super().tools()
        if self.options.where == "tool":
            self.stamp = getattr(self, "stamp", written(self.options.form, now()))
            shell = specs[-1]
            shell["description"] += f" Commands run as of {self.stamp}."
        return specs


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", choices=("prompt", "tool"), required=True)
    parser.add_argument("--form", choices=sorted(FORMS), required=True)


if __name__ == "__main__":
    sys.exit(variant_main(Dated, configure))
