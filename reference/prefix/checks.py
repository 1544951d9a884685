"""What a prefix case's steps must be that the case schema cannot say: one session, one start,
a session id for an OpenAI body, one provider's shape for the answers and the bodies after them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

Problem = tuple[str, str, str]  # (pointer below the case, message, code)


def step_problems(steps: Sequence[object]) -> Iterator[Problem]:
    """Each problem of a prefix case's steps, placed below the case."""
    answered: str | None = None  # the provider whose shape the answers so far have
    for index, step in enumerate(steps):
        if not isinstance(step, dict):
            continue
        where = f"/steps/{index}"
        op = step.get("op")
        provider = step.get("provider")
        if op in ("answer", "request_body") and answered is not None and provider != answered:
            message = (
                f"the answers so far are in {answered}'s shape: "
                f"a {provider} {'answer' if op == 'answer' else 'body'} cannot follow them"
            )
            yield f"{where}/provider", message, "prefix-answer-provider"
        if op == "answer" and answered is None and isinstance(provider, str):
            answered = provider
        if op == "compact":
            answered = None  # the history starts over
        if index == 0 and op != "start":
            message = f"the first step is {op!r}: a prefix case starts with a start step"
            yield f"{where}/op", message, "prefix-start"
        elif index > 0 and op == "start":
            message = "a second start step: a prefix case is one session"
            yield f"{where}/op", message, "prefix-start"
        named = isinstance(steps[0], dict) and "session" in steps[0]
        if op == "request_body" and str(step.get("provider")).startswith("openai") and not named:
            message = "an OpenAI body carries a prompt_cache_key: the start step names no session"
            yield f"{where}/provider", message, "prefix-session"
        if op == "response" and isinstance(step.get("stream"), bool) and "body" in step:
            body, stream = step["body"], step["stream"]
            if stream and not isinstance(body, list):
                message = "a streamed response's body is the list of its events"
                yield f"{where}/body", message, "prefix-body"
            elif not stream and not isinstance(body, dict):
                message = "a response that is not streamed has an object as its body"
                yield f"{where}/body", message, "prefix-body"
