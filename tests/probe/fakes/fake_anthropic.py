"""A fake harness speaking Anthropic Messages, streamed; it stubs re-reads."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

from common import Answer, Session, Shape, main

MARK = {"type": "ephemeral"}


def finish(body: dict[str, Any], session: Session) -> dict[str, Any]:
    """The marks (the system prompt and the conversation's last block), and the effort."""
    body["output_config"] = {"effort": session.effort()}
    if "thinking" in session.faults:
        body["thinking"] = {"type": "enabled", "budget_tokens": 1024}
    if "no-cache-marks" in session.faults:
        return body
    hour = {**MARK, "ttl": "1h"} if "hour-mark" in session.faults else MARK
    body["system"][-1]["cache_control"] = hour
    last = body["messages"][-1]
    if isinstance(last["content"], str):
        last["content"] = [{"type": "text", "text": last["content"]}]
    last["content"][-1]["cache_control"] = MARK
    if "five-marks-always" in session.faults:
        for tool in body["tools"]:
            tool["cache_control"] = MARK
        last["content"].append({"type": "text", "text": "(again)", "cache_control": MARK})
    if "fifth-mark" in session.faults:
        for tool in body["tools"]:
            tool["cache_control"] = MARK
        if len(body["messages"]) > 1:
            before = body["messages"][-2]
            if isinstance(before["content"], str):
                before["content"] = [{"type": "text", "text": before["content"]}]
            before["content"][-1]["cache_control"] = MARK
    return body


def body(
    system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    wire: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "user":
            wire.append({"role": "user", "content": m["text"]})
        elif m["role"] == "assistant":
            blocks: list[dict[str, Any]] = [dict(b) for b in m.get("reasoning", [])]
            blocks += [{"type": "text", "text": m["text"]}] if m["text"] else []
            blocks += [
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]}
                for c in m["calls"]
            ]
            wire.append({"role": "assistant", "content": blocks})
        else:
            block = {"type": "tool_result", "tool_use_id": m["id"], "content": m["text"]}
            if wire and wire[-1]["role"] == "user" and isinstance(wire[-1]["content"], list):
                wire[-1]["content"].append(block)
            else:
                wire.append({"role": "user", "content": [block]})
    functions = [
        {"name": t["name"], "description": t["description"], "input_schema": t["schema"]}
        for t in tools
    ]
    return {
        "model": "mock-model",
        "max_tokens": 1000,
        "system": [{"type": "text", "text": system}],
        "messages": wire,
        "tools": functions,
        "stream": True,
    }


def parse(events: Iterator[dict[str, Any]]) -> Answer:
    text, calls, cached = "", [], None
    thinking: list[dict[str, Any]] = []
    for event in events:
        kind = event["type"]
        if kind == "message_start":
            cached = event["message"]["usage"].get("cache_read_input_tokens")
        elif kind == "content_block_start" and event["content_block"]["type"] == "tool_use":
            block = event["content_block"]
            calls.append({"id": block["id"], "name": block["name"], "args": ""})
        elif kind == "content_block_start" and event["content_block"]["type"] in (
            "thinking",
            "redacted_thinking",
        ):
            thinking.append(dict(event["content_block"]))
        elif kind == "content_block_delta":
            delta = event["delta"]
            if delta["type"] == "text_delta":
                text += delta["text"]
            elif delta["type"] == "thinking_delta":
                thinking[-1]["thinking"] += delta["thinking"]
            elif delta["type"] == "signature_delta":
                thinking[-1]["signature"] += delta["signature"]
            else:
                calls[-1]["args"] += delta["partial_json"]
    done = [{**c, "args": json.loads(c["args"] or "{}")} for c in calls]
    return Answer(text, done, cached, thinking)


SHAPE = Shape(
    read_tool=("Read", "file_path"),
    shell_tool=("Bash", "command", False),
    url=lambda base: base + "/v1/messages",
    headers={"x-api-key": "fake-secret-anthropic", "anthropic-version": "2023-06-01"},
    body=body,
    parse=parse,
    stub_rereads=True,
    finish=finish,
)

if __name__ == "__main__":
    sys.exit(main(SHAPE))
