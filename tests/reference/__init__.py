"""The reference against its own cases, and the suite against broken copies of it."""
