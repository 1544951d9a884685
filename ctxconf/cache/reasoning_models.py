"""What each provider does with a model's reasoning, as data (`data/reasoning.json`): which
models' providers drop earlier turns' reasoning (last-turn-only), which bind a thinking block's
signature to the conversation before it, which refuse a current-turn call without its thought
signature, and the Chat Completions providers that send `reasoning_content` and their refusal
of a tool-call turn without it. Nothing here names a model in code."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from ctxconf.errors import DataError

_DATED = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True)
class ChatFamily:
    """A Chat Completions provider that sends `reasoning_content`: its name, its title, and
    its 400 for a tool-call turn sent back without it (None: it refuses nothing, its cache
    misses)."""

    name: str
    title: str
    refusal: str | None
    # Whether it ignores the reasoning of a turn that called no tool when it comes back: then
    # leaving that reasoning out changes nothing it reads or caches.
    ignores_without_calls: bool = False


@cache
def _data() -> dict[str, Any]:
    file = resources.files("ctxconf.cache") / "data" / "reasoning.json"
    data: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return data


def _matches(model: str, name: str, match: str) -> bool:
    if model == name:
        return True
    if match == "prefix":
        return model.startswith((name + "-", name + "."))
    rest = model[len(name) :] if model.startswith(name) else ""
    return bool(_DATED.fullmatch(rest))


def _listed(table: str, provider: str, model: str) -> bool:
    entry = _data()[table]
    bare = model.rsplit("/", 1)[-1]  # a gateway's "anthropic/claude-…" names the same model
    return any(_matches(bare, name, entry["match"]) for name in entry.get(provider, ()))


def last_turn_only(provider: str, model: str) -> bool:
    """Whether `provider` drops earlier turns' reasoning of `model` at the next message that
    is not a tool result."""
    return _listed("last_turn_only", provider, model)


def last_turn_only_names() -> dict[str, list[str]]:
    """The last-turn-only names by provider, as the data lists them."""
    entry = _data()["last_turn_only"]
    return {k: list(v) for k, v in entry.items() if k != "match"}


def binds_blocks(model: str) -> bool:
    """Whether Anthropic binds `model`'s thinking signatures to the conversation before them."""
    return _listed("block_binding", "anthropic", model)


def requires_signature(model: str) -> bool:
    """Whether Gemini refuses a current-turn call of `model` without its thought signature."""
    return _listed("signature_required", "gemini", model)


def chat_families() -> dict[str, ChatFamily]:
    return {
        name: ChatFamily(
            name,
            str(entry["title"]),
            entry.get("refusal"),
            bool(entry.get("ignores_without_calls", False)),
        )
        for name, entry in _data()["chat"].items()
    }


def chat_family(name: str) -> ChatFamily:
    """The Chat Completions provider `name`; a DataError naming the known ones otherwise."""
    found = chat_families().get(name)
    if found is None:
        known = ", ".join(sorted(chat_families()))
        raise DataError(f"unknown reasoning family {name!r}: one of {known}")
    return found


__all__ = [
    "ChatFamily",
    "binds_blocks",
    "chat_families",
    "chat_family",
    "last_turn_only",
    "last_turn_only_names",
    "requires_signature",
]
