"""Area history: a reload rebuilds an assistant's message without its text when it made calls,
so the reloaded request differs from the live one (hist.persist.cold-equals-live)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_reload_rebuilds_differently",
    {
        "history.session": [
            (
                "        for record in loaded.records:\n            self.state.apply(record)",
                "        for record in loaded.records:\n"
                '            if record["type"] == "entry" and record["entry"].get("calls"):\n'
                '                record = {**record, "entry": {**record["entry"], "text": ""}}\n'
                "            self.state.apply(record)",
            ),
        ],
    },
    areas=("history",),
)
