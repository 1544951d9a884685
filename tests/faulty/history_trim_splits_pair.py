"""Area history: a trim cuts at the oldest message that fits the budget, wherever it falls, not
forward at a person's message, so a result can be sent without the call it answers
(hist.trim.no-orphan, hist.trim.forward)."""

from tests.faulty._edited import implementation

hello, run = implementation(
    "history_trim_splits_pair",
    {
        "history.sizing": [
            (
                "        start = kept_from(messages, budget)\n",
                "        start = next(\n"
                "            (i for i in range(len(messages))\n"
                "             if sum(block.tokens for block in messages[i:]) <= budget),\n"
                "            len(messages) - 1,\n"
                "        )\n",
            ),
        ],
    },
    areas=("history",),
)
