"""The few of each provider's cache rules the audit needs where it has figures and no bodies:
how long an entry lives, what a request leaves readable to the next, and which provider a
request went to. The numbers are the simulators' own (ctxconf.cache), so the two never part."""

from __future__ import annotations

from ctxconf.cache import anthropic_rules, gemini_rules, openai_rules

from .record import AuditRequest, Lifetime

# The provider a model id names, by its start, where a source does not say.
_MODEL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("claude", "anthropic"),
    ("anthropic/", "anthropic"),
    ("gpt", "openai"),
    ("o1", "openai"),
    ("o3", "openai"),
    ("o4", "openai"),
    ("codex", "openai"),
    ("openai/", "openai"),
    ("gemini", "gemini"),
    ("google/", "gemini"),
)


def provider_of(request: AuditRequest) -> str | None:
    if request.provider:
        return request.provider
    model = (request.model or "").lower().rsplit("/", 1)[-1]
    whole = (request.model or "").lower()
    return next(
        (
            name
            for prefix, name in _MODEL_PREFIXES
            if model.startswith(prefix) or whole.startswith(prefix)
        ),
        None,
    )


def lifetime_seconds(provider: str | None, lifetime: Lifetime | None) -> float:
    """How long an entry written with `lifetime` lives unused; implicit caches' documented idle
    time where the provider chooses."""
    if provider == "anthropic":
        return anthropic_rules.TTL_SECONDS[lifetime or "5m"]
    if provider == "gemini":
        return gemini_rules.IDLE_SECONDS
    return openai_rules.IDLE_SECONDS


def longest_lifetime(provider: str | None) -> float:
    """The longest an entry of `provider` can live unused, whatever a request asks: past it, an
    earlier body can no longer be read by a later one."""
    if provider == "anthropic":
        return max(anthropic_rules.TTL_SECONDS.values())
    if provider == "gemini":
        return gemini_rules.IDLE_SECONDS
    return openai_rules.RETAINED_SECONDS


def explicit_writes(provider: str | None) -> bool:
    """Whether what a request leaves readable is what it read and wrote (marks, Anthropic), or
    its whole prompt within the provider's steps (implicit caching)."""
    return provider == "anthropic"


def implicit_readable(provider: str | None, model: str | None, tokens: int) -> int:
    """What of a prompt of `tokens` an implicit cache can read back: OpenAI's 128-token steps
    from 1,024; Gemini's whole prompt from the model's minimum."""
    if provider == "gemini":
        minimum = gemini_rules.minimum_tokens(model or "")
        return tokens if minimum is not None and tokens >= minimum else 0
    return openai_rules.stepped(tokens)


def step_tokens(provider: str | None) -> int:
    """A shortfall smaller than this is the provider's rounding, not a loss."""
    return openai_rules.STEP if provider not in ("anthropic", "gemini") else 1
