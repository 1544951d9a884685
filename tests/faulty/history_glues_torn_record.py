"""Area history: reading the transcript leaves a torn last record on disk, and the next write
appends its first record to that fragment, so one line holds the fragment and a whole record
(hist.persist.torn-tail)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_glues_torn_record",
    {
        "history.store": [
            (
                "        self.records.extend(encode(record) for record in records)",
                "        encoded = [encode(record) for record in records]\n"
                '        if self.records and not self.records[-1].endswith("\\n"):\n'
                "            self.records[-1] += encoded.pop(0)\n"
                "        self.records.extend(encoded)",
            ),
            (
                "        if torn:\n            # rule: hist.persist.torn-tail\n"
                "            del self.records[-1]\n",
                "",
            ),
            (
                "        for text in self.records:\n"
                "            try:\n                record = decode(text)\n"
                "            except ValueError:\n                # rule",
                "        for text in self.records[:-1] if torn else self.records:\n"
                "            try:\n                record = decode(text)\n"
                "            except ValueError:\n                # rule",
            ),
        ],
    },
    areas=("history",),
)
