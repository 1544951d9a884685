"""The `--impl SPEC` argument that every command driving an implementation takes."""

from __future__ import annotations

import argparse


def add_impl_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--impl",
        required=True,
        metavar="SPEC",
        help="reference, python:MODULE (in process), pyproc:MODULE (in a child process), "
        "cmd:COMMAND (a JSON-lines subprocess) or an http:// URL",
    )
