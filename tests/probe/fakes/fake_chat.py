"""A fake harness speaking OpenAI Chat Completions, streamed with usage; it stubs re-reads."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from common import Answer, Session, Shape, arguments, main


def finish(body: dict[str, Any], session: Session) -> dict[str, Any]:
    body["prompt_cache_key"] = session.cache_key()
    body["reasoning_effort"] = session.effort()
    return body


def body(
    system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    wire: list[dict[str, Any]] = [{"role": "system", "content": system}]
    for m in messages:
        if m["role"] == "user":
            wire.append({"role": "user", "content": m["text"]})
        elif m["role"] == "assistant":
            out: dict[str, Any] = {"role": "assistant", "content": m["text"] or None}
            if m.get("reasoning"):
                out["reasoning_content"] = "".join(m["reasoning"])
            if m["calls"]:
                out["tool_calls"] = [
                    {
                        "id": c["id"],
                        "type": "function",
                        "function": {"name": c["name"], "arguments": arguments(c)},
                    }
                    for c in m["calls"]
                ]
            wire.append(out)
        else:
            wire.append({"role": "tool", "tool_call_id": m["id"], "content": m["text"]})
    functions = [
        {
            "type": "function",
            "function": {
                "name": t["name"],
                "description": t["description"],
                "parameters": t["schema"],
            },
        }
        for t in tools
    ]
    return {
        "model": "mock-model",
        "messages": wire,
        "tools": functions,
        "stream": True,
        "stream_options": {"include_usage": True},
    }


def parse(events: Iterator[dict[str, Any]]) -> Answer:
    text, calls, cached = "", {}, None
    reasoning = ""
    for event in events:
        if event.get("usage"):
            cached = event["usage"]["prompt_tokens_details"]["cached_tokens"]
        for choice in event.get("choices", []):
            delta = choice["delta"]
            text += delta.get("content") or ""
            reasoning += delta.get("reasoning_content") or ""
            for call in delta.get("tool_calls") or []:
                slot = calls.setdefault(call["index"], {"id": "", "name": "", "args": ""})
                slot["id"] = call.get("id") or slot["id"]
                slot["name"] = call.get("function", {}).get("name") or slot["name"]
                slot["args"] += call.get("function", {}).get("arguments") or ""
    # The arguments' own bytes are kept, to be sent back as they came.
    done = [{**c, "raw": c["args"], "args": json.loads(c["args"] or "{}")} for c in calls.values()]
    return Answer(text, done, cached, [reasoning] if reasoning else [])


SHAPE = Shape(
    read_tool=("read", "path"),
    shell_tool=("bash", "command", False),
    url=lambda base: base + "/v1/chat/completions",
    headers={"Authorization": "Bearer fake-secret-chat"},
    body=body,
    parse=parse,
    stub_rereads=True,
    finish=finish,
)

if __name__ == "__main__":
    sys.exit(main(SHAPE))
