"""Area history: every message is written as it arrives, not at the turn's end, so a crash
after a tool call reloads with the call orphaned, its result never to come
(hist.persist.no-half-turn, hist.persist.truncate)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_persists_each_message",
    {
        "history.core": [
            (
                "        self.state.apply(record)\n        self._unwritten.append(record)",
                "        self.state.apply(record)\n        self.store.write([record])",
            ),
        ],
    },
    areas=("history",),
)
