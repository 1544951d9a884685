"""Fuzzing: generated sessions run on an implementation and on the reference, shrunk."""
