"""Area history: a rewind to a checkpoint whose point left the live history goes to the oldest
point still live instead of being refused (hist.rewind.dropped)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_rewind_clamps",
    {
        "history.moves": [
            (
                "        if not self._live_entry(target):\n"
                "            # rule: hist.rewind.dropped\n"
                '            return t.render("rewind_dropped", label=label)',
                "        if not self._live_entry(target):\n"
                "            alive = [e.id for e in self._path() if self._live_entry(e.id)]\n"
                "            if not alive:\n"
                '                return t.render("rewind_dropped", label=label)\n'
                "            target = alive[0]",
            ),
        ],
    },
    areas=("history",),
)
