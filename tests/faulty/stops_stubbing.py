"""After the first `reply` the implementation never stubs again: no `Unchanged since` and no
`Same result as`, even within a later request (compaction alone does not cause it)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "stops_stubbing",
    {
        "context.session": [
            ("targets = self._stub_targets.get(key)",
             'targets = None if getattr(self, "stopped", False) else self._stub_targets.get(key)'),
            ("earlier = self._listings.get(key)",
             'earlier = None if getattr(self, "stopped", False) else self._listings.get(key)'),
        ],
        "context.adapter": [
            ('"reply": lambda s, st: s.reply(),',
             '"reply": lambda s, st: (setattr(s, "stopped", True), s.reply())[1],'),
        ],
    },
)
