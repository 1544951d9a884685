"""The spec text (`spec/<area>.md`) read for its rules and its Decisions tables."""
