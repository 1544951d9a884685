"""Area history: a fork's copies keep the ids of the entries they copy instead of taking
`{name}-{k}` (hist.fork.new-ids, hist.fork.ids)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_fork_keeps_ids",
    {
        "history.moves": [
            (
                '        ids = {e.id: t.render("fork_id", fork=name, k=k)'
                " for k, e in enumerate(path, start=1)}",
                "        ids = {e.id: e.id for e in path}",
            ),
            (
                "        taken = sorted((self.state.ids() | self._given) & set(ids.values()))",
                "        taken: list[str] = []",
            ),
        ],
    },
    areas=("history",),
)
