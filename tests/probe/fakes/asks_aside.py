"""A fake harness that asks a side question after each turn, the cache-friendly way: the loop's
system prompt, tools and history, then a prompt of its own (a title for the conversation). The
answer is not kept, so the next request of the loop goes on from the history before it. Not a
fault: a side request that shares the loop's prefix rewrites nothing the loop sent."""

from __future__ import annotations

import sys

from common import Session, variant_main

SIDE_PROMPT = "Give this conversation a title of at most six words."


class AsksAside(Session):
    def ask_aside(self, base_url: str) -> None:
        messages = [*self.messages, {"role": "user", "text": SIDE_PROMPT}]
        body = self.shape.body(self.system, self.tools(), messages)
        if self.shape.finish is not None:
            body = self.shape.finish(body, self)
        self.post(base_url, self.changes.body(body))

    def turn(self, base_url: str, text: str) -> None:
        super().turn(base_url, text)
        if not text.startswith("/"):
            self.ask_aside(base_url)


if __name__ == "__main__":
    sys.exit(variant_main(AsksAside))
