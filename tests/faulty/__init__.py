"""Implementations with one fault each, for `ctxconf fuzz` to find: `python:tests.faulty.NAME`."""
