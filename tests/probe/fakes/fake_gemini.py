"""A fake harness speaking Gemini's streamGenerateContent?alt=sse, its key in the query."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

from common import Answer, Session, Shape, main


def finish(body: dict[str, Any], session: Session) -> dict[str, Any]:
    budgets = {"low": 512, "medium": 1024, "high": 4096}
    body["generationConfig"] = {"thinkingConfig": {"thinkingBudget": budgets[session.effort()]}}
    return body


def body(
    system: str, tools: list[dict[str, Any]], messages: list[dict[str, Any]]
) -> dict[str, Any]:
    contents: list[dict[str, Any]] = []
    for m in messages:
        if m["role"] == "user":
            contents.append({"role": "user", "parts": [{"text": m["text"]}]})
        elif m["role"] == "assistant":
            thoughts = [p for p in m.get("reasoning", []) if p.get("thought")]
            parts: list[dict[str, Any]] = [dict(p) for p in thoughts]
            parts += [{"text": m["text"]}] if m["text"] else []
            for c in m["calls"]:
                part: dict[str, Any] = {"functionCall": {"name": c["name"], "args": c["args"]}}
                if c.get("signature"):
                    part["thoughtSignature"] = c["signature"]
                parts.append(part)
            contents.append({"role": "model", "parts": parts})
        else:
            contents.append(
                {
                    "role": "user",
                    "parts": [
                        {"functionResponse": {"name": m["name"], "response": {"output": m["text"]}}}
                    ],
                }
            )
    declarations = [
        {"name": t["name"], "description": t["description"], "parametersJsonSchema": t["schema"]}
        for t in tools
    ]
    return {
        "systemInstruction": {"parts": [{"text": system}]},
        "contents": contents,
        "tools": [{"functionDeclarations": declarations}],
    }


def parse(events: Iterator[dict[str, Any]]) -> Answer:
    text, calls, cached = "", [], None
    thoughts: list[dict[str, Any]] = []
    for event in events:
        for part in event["candidates"][0]["content"]["parts"]:
            if part.get("thought"):
                thoughts.append(part)
            elif "functionCall" in part:
                call = part["functionCall"]
                calls.append(
                    {
                        "id": f"{call['name']}_{len(calls)}",
                        "name": call["name"],
                        "args": call["args"],
                        "signature": part.get("thoughtSignature"),
                    }
                )
            else:
                text += part.get("text", "")
        cached = event.get("usageMetadata", {}).get("cachedContentTokenCount", cached)
    return Answer(text, calls, cached, thoughts)


SHAPE = Shape(
    read_tool=("read_file", "absolute_path"),
    shell_tool=("run_shell_command", "command", False),
    url=lambda base: (
        base
        + "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key=fake-secret-gemini"
    ),
    headers={"x-goog-api-key": "fake-secret-gemini"},
    body=body,
    parse=parse,
    finish=finish,
)

if __name__ == "__main__":
    sys.exit(main(SHAPE))
