"""A fake harness speaking OpenAI Responses, streamed; no read tool, an argv shell tool."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from common import Answer, Session, Shape, arguments, main


def finish(body: dict[str, Any], session: Session) -> dict[str, Any]:
    body["prompt_cache_key"] = session.cache_key()
    body["reasoning"] = {"effort": session.effort()}
    return body


def body(
    system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "user":
            items.append({"role": "user", "content": [{"type": "input_text", "text": m["text"]}]})
        elif m["role"] == "assistant":
            items += [dict(item) for item in m.get("reasoning", [])]
            if m["text"]:
                items.append(
                    {
                        "type": "message",
                        "role": "assistant",
                        "content": [{"type": "output_text", "text": m["text"]}],
                    }
                )
            for c in m["calls"]:
                items.append(
                    {
                        "type": "function_call",
                        "call_id": c["id"],
                        "name": c["name"],
                        "arguments": arguments(c),
                    }
                )
        else:
            items.append({"type": "function_call_output", "call_id": m["id"], "output": m["text"]})
    functions = [
        {
            "type": "function",
            "name": t["name"],
            "description": t["description"],
            "parameters": t["schema"],
            "strict": False,
        }
        for t in tools
    ]
    return {
        "model": "mock-model",
        "instructions": system,
        "input": items,
        "tools": functions,
        "stream": True,
        "store": False,
    }


def parse(events: Iterator[dict[str, Any]]) -> Answer:
    text, calls, cached = "", [], None
    reasoning: list[dict[str, Any]] = []
    for event in events:
        if event["type"] == "response.output_item.done":
            item = event["item"]
            if item["type"] == "function_call":
                calls.append(
                    {
                        "id": item["call_id"],
                        "name": item["name"],
                        "args": json.loads(item["arguments"]),
                        "raw": item["arguments"],
                    }
                )
            elif item["type"] == "reasoning":
                reasoning.append(item)
            else:
                text += "".join(part.get("text", "") for part in item["content"])
        elif event["type"] == "response.completed":
            cached = event["response"]["usage"]["input_tokens_details"]["cached_tokens"]
    return Answer(text, calls, cached, reasoning)


SHAPE = Shape(
    read_tool=None,
    shell_tool=("exec_command", "cmd", True),
    url=lambda base: base + "/v1/responses",
    headers={"Authorization": "Bearer fake-secret-responses"},
    body=body,
    parse=parse,
    finish=finish,
)

if __name__ == "__main__":
    sys.exit(main(SHAPE))
