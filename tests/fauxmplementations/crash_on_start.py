"""Exits before reading anything."""

import sys

sys.stderr.write("crash_on_start: no configuration found\n")
sys.exit(1)
