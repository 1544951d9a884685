"""The model's reasoning as every shape's answers carry it, and what a shape says of it: what
a request asks (`Asked`), the reasoning of one answer (`Thought`), the session's options
(`ReasoningOptions`: the Chat provider that sends `reasoning_content`, Anthropic's block
binding enforced), and a shape's own reading of the reasoning sent back (`ReasoningWay`): the
API's refusal of a block changed or missing, or the body as the provider reads it once it has
dropped blocks it will not take (`Transformed`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ctxconf.cache.credentials import Headers

from .signing import Signer

DEFAULT_THINK = "Let me work out the next step of the task."


@dataclass(frozen=True)
class ReasoningOptions:
    """The session's reasoning settings: `chat` names the Chat Completions provider whose
    models send `reasoning_content` (`ctxconf/cache/data/reasoning.json`; None: no Chat model
    reasons); `binding` enforces Anthropic's block binding on every model, as for an account
    made after it began."""

    chat: str | None = None
    binding: bool = False


@dataclass(frozen=True)
class Asked:
    """What a request asked of the model's reasoning: whether the answer carries it back
    signed (Responses: `encrypted_content`), and whether a summary is shown (Responses'
    `reasoning.summary`, Gemini's `includeThoughts`)."""

    signed: bool = True
    summary: bool = False


@dataclass(frozen=True)
class Thought:
    """The reasoning of one answer: its text; `redacted`, an Anthropic answer whose reasoning
    comes as a `redacted_thinking` block; and its signed values, made by the shape's `sign`
    (`signature`: Anthropic's, Gemini's `thoughtSignature`; `sealed`: Responses'
    `encrypted_content`, a redacted block's `data`)."""

    text: str
    asked: Asked = field(default_factory=Asked)
    redacted: bool = False
    signature: str = ""
    sealed: str = ""


@dataclass(frozen=True)
class Transformed:
    """A body the provider took after dropping what it would not read: the body as it read
    it, and what it says it did (Anthropic's `input_transformations`)."""

    body: Mapping[str, Any]
    notes: tuple[dict[str, Any], ...]


# What the request asks (None: no reasoning), given the session's options.
ReadAsked = Callable[[Mapping[str, Any], ReasoningOptions], Asked | None]
# The reasoning sent back (body, headers, the model asked), checked: the API's refusal (a
# shape's `Refusal`), the body as the provider read it, or None when it takes it as it is.
CheckReasoning = Callable[[Mapping[str, Any], Headers, str, Signer, ReasoningOptions], Any]


# The thought signed for the answer to a body, whose calls (name, arguments) are given.
SignThought = Callable[[Thought, Mapping[str, Any], tuple[tuple[str, Any], ...], Signer], Thought]


@dataclass(frozen=True)
class ReasoningWay:
    """How a shape's API reasons: what a request asks, how an answer's reasoning is signed,
    and its check of what comes back; `redacts` whether its answers can carry redacted
    reasoning."""

    asked: ReadAsked
    sign: SignThought
    check: CheckReasoning
    redacts: bool = False


__all__ = [
    "DEFAULT_THINK",
    "Asked",
    "CheckReasoning",
    "ReadAsked",
    "ReasoningOptions",
    "ReasoningWay",
    "SignThought",
    "Thought",
    "Transformed",
]
