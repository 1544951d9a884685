"""The `ctxconf` command: each subcommand parses its arguments and calls one library function."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ctxconf import __version__
from ctxconf.about import ABOUT, GUIDE
from ctxconf.exitcodes import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE

# Subcommand name -> module in ctxconf.commands with `add_arguments(parser)` and `run(args) -> int`.
COMMANDS: dict[str, str] = {
    "validate": "Check the spec files (or the files given) against their schemas.",
    "run": "Run the conformance cases against an implementation.",
    "serve": "Serve the reference implementation over JSON lines or HTTP.",
    "report": "Render a results file as HTML, or compare two runs.",
    "regen": "Regenerate the expected texts of the cases from the reference.",
    "lint": "Check that the spec text, its data and its cases agree.",
    "check": "The gate for spec edits: validate, lint, regen --check and the reference run.",
    "show": "Print a case's steps and expected texts as they would be inserted.",
    "add-case": "Add a case from a short YAML file, its expected texts filled in by the reference.",
    "fuzz": "Search for sessions where an implementation departs from the reference.",
    "probe": "Check a real, unmodified harness from the outside, against a mock model.",
    "audit": "Read your session records: which requests lost the cache, why, at what cost.",
    "proxy": "Record a harness's real traffic through a reverse proxy in front of its provider.",
}

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "main"]


def _module_name(command: str) -> str:
    return "ctxconf.commands." + command.replace("-", "_")


def build_parser(only: str | None) -> argparse.ArgumentParser:
    """The parser; with `only`, the arguments of that one command alone are set up, so that a
    run imports its own command's module and no other (they pull in jsonschema, jinja2, …)."""
    parser = argparse.ArgumentParser(
        prog="ctxconf",
        description=ABOUT,
        epilog=GUIDE,
        formatter_class=argparse.RawDescriptionHelpFormatter,  # keeps the guide's columns
    )
    parser.add_argument("--version", action="version", version=f"ctxconf {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, summary in COMMANDS.items():
        command = sub.add_parser(name, help=summary, description=summary)
        if name != only:
            continue
        module = importlib.import_module(_module_name(name))
        module.add_arguments(command)
        command.set_defaults(handler=module.run)
    return parser


def _chosen(argv: Sequence[str]) -> str | None:
    for arg in argv:
        if not arg.startswith("-"):
            return arg if arg in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = _chosen(argv)
    parser = build_parser(chosen)
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`ctxconf … | head`): say nothing more, and let exit not flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_FAILED
