"""The history area's fuzzing: its sessions (Hypothesis strategies), how a finding shrinks, and
the rules a finding probably breaks. Imported only to fuzz: it needs Hypothesis."""

from .rules import RULES_GUESSED, guess_rules, smaller
from .sessions import history_sessions as sessions
from .texts import HISTORY_OPS as OPS

__all__ = ["OPS", "RULES_GUESSED", "guess_rules", "sessions", "smaller"]
