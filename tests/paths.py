"""Where the suite finds the repository and its shared fakes, from any test folder."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
# Implementations that break on purpose, one way each (run as users run them).
FAUX = TESTS / "fauxmplementations"
# The probe's own schemas (its results, profiles and scenarios).
PROBE_SCHEMAS = ROOT / "probe" / "data" / "schemas"
