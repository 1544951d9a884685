"""Gemini generateContent: `…:generateContent`, `…:streamGenerateContent` and `…:countTokens`;
the model is in the path, not the body.

The request: each function declaration (and each other tool entry), then the parts of
`systemInstruction`, then the parts of each of `contents`; calls are `functionCall` parts,
results `functionResponse` parts (snake_case spellings read too). The answer: one candidate (a
text part, then a `functionCall` part per call), whole or as a stream of chunks (the text in
pieces, the calls whole in the last); usage in `usageMetadata` on every chunk; the model in
`modelVersion`, the answer's id in `responseId` (Gemini sends no request-id header). Gemini has
no cache diagnostics.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from ctxconf.cache.canonical import canonical_text
from ctxconf.cache.units import Parts, dicts, mapping

from . import wire
from .answers import Answer, Event, Reply, chunks, token
from .gemini_thoughts import REASONING
from .reasoning import Thought
from .shape import ApiShape, Ids, Refusal, Routes
from .wire import Mention, Request, Tool, ToolResult

NAME = "gemini"
TITLE = "Gemini generateContent"
ROUTES: Routes = (
    (":countTokens", "count"),
    (":streamGenerateContent", "stream"),
    (":generateContent", "answer"),
)
PROVIDERS = ("gemini",)  # the first is the one it is played under by default
_DECLARATIONS = ("functionDeclarations", "function_declarations")
_SCHEMAS = ("parameters", "parametersJsonSchema", "parameters_json_schema")


def _either(value: Mapping[str, Any], camel: str, snake: str) -> Any:
    return value.get(camel) or value.get(snake)


# --- the request, as the mock and the checks see it -------------------------------------------


def _mentions(index: int, m: Mapping[str, Any]) -> list[Mention]:
    found = []
    for part in wire.dicts(m.get("parts")):
        call = wire.as_mapping(_either(part, "functionCall", "function_call"))
        response = wire.as_mapping(_either(part, "functionResponse", "function_response"))
        if call:
            name = str(call.get("name", ""))
            found.append(Mention("call", index, str(call.get("id") or ""), name, call.get("args")))
        elif response:
            key = str(response.get("id") or response.get("name", ""))
            found.append(Mention("result", index, key, text=wire.text_of(response.get("response"))))
    return found


def refuse(body: Mapping[str, Any]) -> Refusal | None:
    """A model turn's `functionCall` parts must be answered, one `functionResponse` part each,
    by the very next content. The wording follows the API's observed error."""
    contents = wire.dicts(body.get("contents"))
    for content, after in pairwise(contents):
        calls = [m for m in _mentions(0, content) if m.kind == "call"]
        responses = [m for m in _mentions(0, after) if m.kind == "result"]
        if content.get("role") != "model" or not calls or len(responses) == len(calls):
            continue
        text = (
            "Please ensure that the number of function response parts is equal to the number of"
            " function call parts of the function call turn."
        )
        error = {"code": 400, "message": text, "status": "INVALID_ARGUMENT"}
        return Refusal(400, {"error": error}, text)
    return None


def _schema(declaration: Mapping[str, Any]) -> Mapping[str, Any]:
    return wire.as_mapping(next((declaration[k] for k in _SCHEMAS if declaration.get(k)), None))


def parse(body: Mapping[str, Any], stream: bool = False) -> Request:
    contents = tuple(wire.dicts(body.get("contents")))
    instruction = body.get("systemInstruction") or body.get("system_instruction")
    declarations = [
        d for t in wire.dicts(body.get("tools")) for d in wire.dicts(_either(t, *_DECLARATIONS))
    ]
    results: list[ToolResult] = []
    users: list[str] = []
    for c in contents:
        if c.get("role", "user") != "user":
            continue
        texts = []
        for part in wire.dicts(c.get("parts")):
            response = _either(part, "functionResponse", "function_response")
            if isinstance(response, Mapping):
                key = str(response.get("id") or response.get("name", ""))
                results.append(ToolResult(key, wire.text_of(response.get("response"))))
            elif "text" in part:
                texts.append(str(part["text"]))
        if texts:
            users.append("\n".join(texts))
    config = _either(body, "generationConfig", "generation_config") or {}
    mime = config.get("responseMimeType") if isinstance(config, Mapping) else None
    return Request(
        shape=NAME,
        system=None
        if instruction is None
        else wire.text_of(wire.as_mapping(instruction).get("parts")),
        tools=tuple(
            Tool(str(d.get("name")), _schema(d), wire.description_of(d)) for d in declarations
        ),
        messages=contents,
        assistant_turns=sum(1 for c in contents if c.get("role") == "model"),
        results=tuple(results),
        last_user_text=wire.user_text(users),
        user_texts=tuple(users),
        stream=stream,
        include_usage=True,
        wants_json=mime == "application/json",
        history=wire.mentions(contents, _mentions),
    )


# --- the request, as a provider's cache sees it ------------------------------------------------


def _cache_schema(declaration: Mapping[str, Any]) -> Any:
    return next((declaration[k] for k in _SCHEMAS if k in declaration), None)


def read_cache(body: Mapping[str, Any]) -> Parts:
    parts = Parts()
    for index, tool in enumerate(dicts(body.get("tools"))):
        key = next((k for k in _DECLARATIONS if k in tool), None)
        if key is None:  # googleSearch, codeExecution, …: one unit named by its key
            name = next(iter(tool), "")
            parts.add_tool(f"tools.{index}", tool, name, "", tool.get(name))
            continue
        for n, declaration in enumerate(dicts(tool.get(key))):
            spec = (declaration.get("name"), declaration.get("description"))
            path = f"tools.{index}.{key}.{n}"
            parts.add_tool(path, declaration, *spec, _cache_schema(declaration))
    instruction = body.get("systemInstruction", body.get("system_instruction"))
    if isinstance(instruction, str):
        instruction = {"parts": [{"text": instruction}]}
    for n, part in enumerate(dicts(mapping(instruction).get("parts"))):
        parts.add("system", f"systemInstruction.parts.{n}", part, role="system")
    for index, content in enumerate(dicts(body.get("contents"))):
        role = str(content.get("role", "user"))
        header = {k: v for k, v in content.items() if k != "parts"}
        header.setdefault("role", role)
        path = f"contents.{index}"
        blocks = [(f"{path}.parts.{n}", p) for n, p in enumerate(dicts(content.get("parts")))]
        parts.add_message("messages", path, index, role, header, blocks)
    config = mapping(body.get("generationConfig", body.get("generation_config")))
    parts.params.update(
        thinking=canonical_text(config.get("thinkingConfig", config.get("thinking_config"))),
        tool_choice=canonical_text(body.get("toolConfig", body.get("tool_config"))),
    )
    return parts


# --- the answer ------------------------------------------------------------------------------

_RESPONSE_ID = string.ascii_letters + string.digits + "-_"


def answer_id() -> str:
    return token(23, _RESPONSE_ID)


def _thought_part(thought: Thought | None) -> list[dict[str, Any]]:
    return [{"text": thought.text, "thought": True}] if thought and thought.asked.summary else []


def _parts(reply: Reply, thought: Thought | None = None) -> list[dict[str, Any]]:
    """The thought where it is shown, the text, then a part per call, the first signed."""
    parts: list[dict[str, Any]] = [{"text": reply.text}] if reply.text or not reply.calls else []
    calls: list[dict[str, Any]] = [
        {"functionCall": {"name": c.tool, "args": c.arguments}} for c in reply.calls
    ]
    if calls and thought is not None and thought.signature:
        calls[0]["thoughtSignature"] = thought.signature
    return _thought_part(thought) + parts + calls


def _chunk(answer: Answer, parts: list[dict[str, Any]], last: bool) -> dict[str, Any]:
    # Every chunk carries the usage so far: the prompt's figures whole, the output at the end.
    t = answer.tokens
    output = t.output if last else 0
    candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if last:
        candidate["finishReason"] = "STOP"
    return {
        "candidates": [candidate],
        "usageMetadata": {
            "promptTokenCount": t.input_total,
            "cachedContentTokenCount": t.cached,
            "candidatesTokenCount": output,
            "totalTokenCount": t.input_total + output,
        },
        "modelVersion": answer.model,
        "responseId": answer.id,
    }


def body(answer: Answer) -> dict[str, Any]:
    return _chunk(answer, _parts(answer.reply, answer.thought), last=True)


def events(answer: Answer, include_usage: bool) -> list[Event]:
    """The text in pieces, then the calls, each a whole part, in the last chunk."""
    reply = answer.reply
    pieces = [[{"text": p}] for p in chunks(reply.text)] if reply.text or not reply.calls else []
    shown = _thought_part(answer.thought)
    if shown:
        pieces.insert(0, shown)
    calls = [p for p in _parts(reply, answer.thought) if "functionCall" in p]
    if calls or not pieces:
        pieces.append(calls)
    return [Event(_chunk(answer, p, n == len(pieces) - 1)) for n, p in enumerate(pieces)]


def count(total: int) -> dict[str, Any]:
    return {"totalTokens": total}


# Gemini names no request in a header: the answer's `responseId` is all a client has.
SHAPE = ApiShape(
    NAME,
    TITLE,
    ROUTES,
    PROVIDERS,
    parse,
    read_cache,
    body,
    events,
    refuse,
    Ids(answer_id),
    count,
    reasoning=REASONING,
)
