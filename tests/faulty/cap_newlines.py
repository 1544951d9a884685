"""The output cap leaves out the newlines that join the head's (and the tail's) lines when it
counts their characters, so a head or tail can hold more than `head_chars`/`tail_chars`."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "cap_newlines",
    {
        "context.cap": [
            ("if line_end > max_chars:", "if line_end - taken > max_chars:"),
            ("if end - line_start > max_chars:", "if end - line_start - taken > max_chars:"),
        ]
    },
)
