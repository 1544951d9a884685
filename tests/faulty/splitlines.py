"""Lines are split with `str.splitlines()`, which also ends a line at `\\r`, U+2028, U+2029,
`\\v`, `\\f`, U+0085 and others: reads, recalls, line counts and the cap see other lines."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "splitlines",
    {
        "context.lines": [
            ('return text.count("\\n") + (0 if text.endswith("\\n") else 1)',
             "return len(text.splitlines())"),
            ('    lines = text.split("\\n")\n    if lines[-1] == "":\n        lines.pop()\n'
             "    return lines",
             "    return text.splitlines()"),
            ("return _between(text, start, nth_newline(text, last - first + 1, start))"
             '.split("\\n")',
             "return text.splitlines()[first - 1 : last]"),
            ('self.total = newlines + (1 if text and not text.endswith("\\n") else 0)',
             "self.total = len(text.splitlines())"),
            ("return _between(self.text, start, self.newline(last))",
             'return "\\n".join(self.text.splitlines()[first - 1 : last])'),
        ]
    },
)
