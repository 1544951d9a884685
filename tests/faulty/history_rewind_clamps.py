"""Area history: a rewind to a checkpoint whose point left the live history goes to the oldest
point still live instead of being refused (hist.rewind.dropped): the mutant of that name, run as
an implementation."""

from tests.faulty._edited import implementation
from tests.mutants import MUTANTS

_CLAMPED = next(m for m in MUTANTS if m.name == "clamped-to-the-oldest-live-entry")

hello, run = implementation(
    "history_rewind_clamps", {"history.moves": list(_CLAMPED.edits)}, areas=("history",)
)
