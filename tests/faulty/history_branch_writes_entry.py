"""Area history: a branch writes its target entry again before the tip record, so the
transcript gains an entry a branch must not add (hist.branch.pointer)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_branch_writes_entry",
    {
        "history.moves": [
            (
                "            self._write([tip_record(conversation.name, target.parent)])",
                "            self._write([entry_record(conversation.name, target),\n"
                "                         tip_record(conversation.name, target.parent)])",
            ),
            (
                "        self._write([tip_record(conversation.name, target.id)])",
                "        self._write([entry_record(conversation.name, target),\n"
                "                     tip_record(conversation.name, target.id)])",
            ),
        ],
    },
    areas=("history",),
)
