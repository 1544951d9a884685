"""The probe's one error: its input (a profile, a scenario, a results file) cannot be used.
Everything a harness does wrong is a result instead, never an exception. The cache audit and the
API shapes below the probe refuse their input with the DataError this is one of."""

from __future__ import annotations

from ctxconf.errors import DataError


class ProbeDataError(DataError):
    """A one-line message naming the file and the place; the command exits 2 with it."""

    code = "probe-data"


__all__ = ["ProbeDataError"]
