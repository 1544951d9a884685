"""The probe's one error: its input (a profile, a scenario, a results file) cannot be used.
Everything a harness does wrong is a result instead, never an exception."""

from __future__ import annotations


class ProbeDataError(Exception):
    """A one-line message naming the file and the place; the command exits 2 with it."""


__all__ = ["ProbeDataError"]
