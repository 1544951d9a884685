"""The output cap leaves out the newlines that join the head's (and the tail's) lines when it
counts their characters, so a head or tail can hold more than `head_chars`/`tail_chars`."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "cap_newlines", {"cap": [("used += len(line) + 1", "used += len(line)")]}
)
