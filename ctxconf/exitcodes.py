"""The exit codes every command uses, in one place.

A failure count is never an exit code (it wraps at 256); an interrupted run exits as a shell
reports a process stopped by Ctrl-C.
"""

from __future__ import annotations

EXIT_OK = 0  # every check passed
EXIT_FAILED = 1  # the run or check found failures
EXIT_USAGE = 2  # unusable arguments, configuration or data
EXIT_NOTHING_JUDGED = 3  # nothing could be judged (no figures): never green on nothing
EXIT_INTERRUPTED = 130  # Ctrl-C, SIGTERM or SIGHUP: 128 + SIGINT

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_NOTHING_JUDGED", "EXIT_OK", "EXIT_USAGE"]
