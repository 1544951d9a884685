"""A fake harness that mishandles the model's reasoning, one way per `--how`:

strip-earlier   leaves out every earlier turn's reasoning once a new message comes (as for a
                last-turn-only model, on a keep-all one);
drop            never sends reasoning back;
rewrite         changes the newest answer's signature (Chat: its reasoning_content's text);
after-call      puts the reasoning after the call it led to (Anthropic, Responses);
retry-refused   rewrites as `rewrite` does, and sends a refused request again unchanged;
strip-plain     leaves out the reasoning of every earlier answer that called no tool (what the
                Chat providers that send reasoning_content ignore when it comes back).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
from typing import Any

from common import Answer, Session, variant_main

HOWS = ("strip-earlier", "drop", "rewrite", "after-call", "retry-refused", "strip-plain")


def _rewritten(value: str) -> str:
    return value[:-2] + ("AA" if not value.endswith("AA") else "BB")


def _rewrite(message: dict[str, Any]) -> dict[str, Any]:
    reasoning = []
    for item in message.get("reasoning", []):
        if isinstance(item, str):  # Chat's reasoning_content, tidied
            reasoning.append(item.strip().replace(":", " -"))
        elif "signature" in item:
            reasoning.append({**item, "signature": _rewritten(item["signature"])})
        elif "encrypted_content" in item:
            reasoning.append({**item, "encrypted_content": _rewritten(item["encrypted_content"])})
        else:
            reasoning.append(item)
    calls = [
        {**c, "signature": _rewritten(c["signature"])} if c.get("signature") else c
        for c in message.get("calls", [])
    ]
    return {**message, "reasoning": reasoning, "calls": calls}


def _stripped(message: dict[str, Any]) -> dict[str, Any]:
    """The message without its reasoning: Gemini's signatures on its calls too."""
    calls = [{**c, "signature": None} for c in message.get("calls", [])]
    return {**message, "reasoning": [], "calls": calls}


def _after_calls(body: dict[str, Any]) -> dict[str, Any]:
    for message in body.get("messages", []):
        content = message.get("content")
        if message.get("role") == "assistant" and isinstance(content, list):
            thinking = [b for b in content if b.get("type") == "thinking"]
            message["content"] = [b for b in content if b.get("type") != "thinking"] + thinking
    items = body.get("input")
    if isinstance(items, list):
        moved: list[dict[str, Any]] = []
        held: list[dict[str, Any]] = []
        for item in items:
            if item.get("type") == "reasoning":
                held.append(item)
                continue
            moved.append(item)
            if item.get("type") == "function_call":
                moved += held
                held = []
        body["input"] = moved + held
    return body


class MishandlesReasoning(Session):
    def reasoning_on_the_wire(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        how = self.options.how
        if how == "strip-plain":
            last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
            return [
                _stripped(m) if m["role"] == "assistant" and i < last and not m.get("calls") else m
                for i, m in enumerate(messages)
            ]
        if how in ("drop", "strip-earlier"):
            users = [i for i, m in enumerate(messages) if m["role"] == "user"]
            cut = len(messages) if how == "drop" else users[-1] if users else 0
            return [
                _stripped(m) if m["role"] == "assistant" and i < cut else m
                for i, m in enumerate(messages)
            ]
        if how in ("rewrite", "retry-refused"):
            last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
            if last >= 0:
                messages = [*messages[:last], _rewrite(messages[last]), *messages[last + 1 :]]
        return messages

    def post(self, base_url: str, body: dict[str, Any]) -> Answer:
        if self.options.how == "after-call":
            body = _after_calls(json.loads(json.dumps(body)))
        try:
            return super().post(base_url, body)
        except urllib.error.HTTPError:
            if self.options.how != "retry-refused":
                raise
            return super().post(base_url, body)  # the same request once more


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--how", choices=HOWS, required=True)


if __name__ == "__main__":
    sys.exit(variant_main(MishandlesReasoning, configure))
