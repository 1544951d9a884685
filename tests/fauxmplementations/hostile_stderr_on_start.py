"""Writes terminal control sequences to stderr and exits before it answers hello."""

import sys

sys.stderr.write("hostile_stderr_on_start: \x1b[2J\x1b]52;c;cm0gLXJmIH4=\x07\x9b2J\n")
sys.exit(1)
