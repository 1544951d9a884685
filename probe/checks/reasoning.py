"""The reasoning checks: what a harness sends back of the model's reasoning.

The mock gives reasoning where a request asks for it, each answer's logged beside its reply.
Within a tool-use turn the next request must carry it as it came and in its place, in each
shape's own form (`pfx.reasoning.anthropic`, `.responses`, `.gemini`, `.chat`); on a keep-all
model every later request must (`pfx.reasoning.kept`), and so after a pause past the cache's
lifetime (`pfx.reasoning.idle`), where a strip is reported with what it cost: nothing, the
entry being gone. What the harness did with a request the API refused for its reasoning is
`reasoning-refused`: the same request sent again fails the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ctxconf.cache import audit
from ctxconf.cache.reasoning_models import chat_family, last_turn_only

from ..harness import ProbeRun, SessionRun
from ..usage_figures import played_requests
from .model import CheckDef, CheckResult, Sent, _result
from .reasoning_found import Found, Given, found_in, given

LONG_PAUSE_S = 3600  # cache.prefix_ttl: past it, every entry a request asks for is gone
_WORDS: dict[Found, str] = {
    "changed": "was changed",
    "moved": "was moved from its place",
    "stripped": "was left out",
}


def _given(session: SessionRun) -> list[Given]:
    return [g for e in session.entries if e.get("kind") == "answer" and (g := given(e))]


def _bodies(session: SessionRun) -> dict[int, dict[str, Any]]:
    """Every body the harness sent that the mock answered or the API refused."""
    return {
        int(e["n"]): e.get("sent", e["body"])
        for e in session.entries
        if e.get("kind") in ("answer", "api-error") and isinstance(e.get("body"), dict)
    }


def _with_refused(session: SessionRun, sent: list[Sent]) -> list[Sent]:
    """The loop's requests and those the API refused for their reasoning, in order: a refused
    request was sent all the same."""
    refused = [
        Sent(int(e["n"]), sent[0].request, None, None, 0)
        for e in session.entries
        if e.get("kind") == "api-error" and e.get("reasoning") and sent
    ]
    return sorted([*sent, *refused], key=lambda s: s.n)


def _none_given(run: ProbeRun) -> str:
    return (
        "the harness never asked for the model's reasoning: no answer carried any"
        f" ({run.profile.api})"
    )


def _cost(session: SessionRun, n: int) -> dict[str, Any]:
    """The cache audit's reading of request `n`: its first cause, the unit and byte, and what
    the harness lost by it."""
    played = played_requests(session)
    if not played:
        return {}
    provider = str(played[0][0]["cache"]["provider"])
    requests = [r for _, r in played]
    result = audit(provider, requests)
    for (entry, _), diagnosis in zip(played, result.diagnoses, strict=True):
        if int(entry["n"]) != n or diagnosis is None:
            continue
        cause = next((c for c in diagnosis.causes if c.kind.startswith("reasoning-")), None)
        cause = cause or next((c for c in diagnosis.causes if c.kind == "expired"), None)
        if cause is None:
            return {}
        return {
            "cause": cause.kind,
            "unit": cause.unit,
            "byte": cause.byte,
            "lost_tokens": diagnosis.loss.harness,
            "expired": any(c.kind == "expired" for c in diagnosis.causes),
        }
    return {}


def _where(cost: dict[str, Any]) -> str:
    if not cost:
        return " (the cache audit names no break of its own there)"
    at = f" at {cost['unit']}" if cost.get("unit") else ""
    at += f", byte {cost['byte']}" if cost.get("byte") is not None else ""
    return f" ({cost['cause']}{at}; {cost['lost_tokens']:,} tokens lost)"


def _judge_sent(
    check: CheckDef,
    run: ProbeRun,
    later: Callable[[SessionRun, Given, list[Sent]], list[Sent]],
    sessions: list[list[Sent]],
    what: str,
    needed: Callable[[Given], bool] = lambda g: True,
) -> CheckResult:
    """Each answer's reasoning that must come back (`needed`) in the requests `later` names;
    the first one that lost it."""
    judged = seen = given_any = 0
    for index, session in enumerate(run.sessions):
        bodies = _bodies(session)
        for g in _given(session):
            given_any += 1
            if not needed(g):
                continue
            seen += 1
            for sent in later(session, g, _with_refused(session, sessions[index])):
                body = bodies.get(sent.n)
                asked = bodies.get(g.n, {}).get("contents")
                at = len(asked) if isinstance(asked, list) else None
                found = found_in(g, body, at) if body is not None else "absent"
                if found == "absent":
                    continue
                judged += 1
                if found != "kept":
                    cost = _cost(session, sent.n) if sent.step is not None else {}
                    return _result(
                        check,
                        "fail",
                        f"request {sent.n}: the reasoning of the answer to request {g.n}"
                        f" {_WORDS[found]}{_where(cost)}",
                        request=sent.n,
                        answer=g.n,
                        found=found,
                        **cost,
                    )
    if not given_any:
        return _result(check, "not-testable", _none_given(run))
    if not seen:
        return _result(
            check,
            "not-testable",
            "every answer that reasoned called no tool, and its Chat provider ignores such"
            " reasoning when it comes back: none had to come back",
        )
    if not judged:
        return _result(check, "error", f"no later request carried the answers {what}")
    return _result(check, "pass", f"{judged} reasoning blocks sent back as they came {what}")


def _next_of_turn(session: SessionRun, g: Given, sent: list[Sent]) -> list[Sent]:
    """The request that goes on from a tool-use answer: the next one of the loop."""
    if not g.calls:
        return []
    after = [s for s in sent if s.n > g.n]
    return after[:1]


def back(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    given = [g for session in run.sessions for g in _given(session)]
    if given and not any(g.calls for g in given):
        return _result(
            check,
            "not-testable",
            "no answer that carried reasoning called a tool: there was no tool-use turn to send"
            " it back within",
        )
    return _judge_sent(check, run, _next_of_turn, sessions, "within their tool-use turns")


def _pause_request(run: ProbeRun, sent: list[Sent]) -> int | None:
    """The first request after the scenario's first pause past the lifetime, if any."""
    for number, turn in enumerate(run.scenario.turns):
        if turn.pause > LONG_PAUSE_S:
            first = run.scenario.first_step_of_turn(number)
            found = next((s.n for s in sent if s.step is not None and s.step >= first), None)
            return found
    return None


def _keep_all(session: SessionRun) -> str | None:
    """Why the session's model is not keep-all, or None."""
    for entry in session.entries:
        cache = entry.get("cache")
        if isinstance(cache, dict) and last_turn_only(str(cache["provider"]), str(cache["model"])):
            return (
                f"the model {cache['model']} is last-turn-only: its provider drops earlier"
                " turns' reasoning by itself (pfx.reasoning.last-turn-only)"
            )
    return None


def _must_return(run: ProbeRun) -> Callable[[Given], bool]:
    """Whether an answer's reasoning must come back in later requests: a Chat provider that
    ignores it when it comes back from a turn that called no tool (DeepSeek) reads nothing of
    it there, so leaving it out changes nothing; Kimi caches it, byte for byte."""
    chat = run.scenario.reasoning.chat
    ignores = chat is not None and chat_family(chat).ignores_without_calls

    def must(g: Given) -> bool:
        return not (ignores and g.shape == "openai-chat" and not g.calls)

    return must


def kept(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    why = next((w for s in run.sessions if (w := _keep_all(s))), None)
    if why is not None:
        return _result(check, "not-testable", why)

    def later(session: SessionRun, g: Given, sent: list[Sent]) -> list[Sent]:
        pause = _pause_request(run, sent)
        return [s for s in sent if s.n > g.n and (pause is None or s.n < pause)]

    return _judge_sent(check, run, later, sessions, "in every later request", _must_return(run))


def idle(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    why = next((w for s in run.sessions if (w := _keep_all(s))), None)
    if why is not None:
        return _result(check, "not-testable", why)
    if run.profile.plays_one_turn:
        return _result(
            check, "not-testable", "the harness plays one task per run: no turn after the pause"
        )

    def later(session: SessionRun, g: Given, sent: list[Sent]) -> list[Sent]:
        pause = _pause_request(run, sent)
        return [s for s in sent if pause is not None and s.n >= pause > g.n]

    result = _judge_sent(check, run, later, sessions, "after the pause", _must_return(run))
    if result.verdict == "fail" and result.figures.get("expired"):
        summary = result.summary + (
            "; the cache's entry had expired in the pause, so the strip cost nothing cached"
            " and is charged as no break, but the spec keeps reasoning through a pause"
        )
        return _result(check, "fail", summary, **result.figures)
    return result


def _long_pause(run: ProbeRun) -> str | None:
    if any(t.pause > LONG_PAUSE_S for t in run.scenario.turns):
        return None
    return f"the scenario pauses no longer than the cache's lifetime ({LONG_PAUSE_S} s)"


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def refused(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    """What the harness did after the API refused a request for its reasoning: sent it again
    unchanged (fail: it fails the same way), or changed its reasoning and went on, or
    stopped."""
    for session in run.sessions:
        # The API's exchanges alone: a harness's other calls (a model list, a count) are not
        # what it did with the refusal.
        entries = [
            e
            for e in session.entries
            if e.get("kind") in ("answer", "api-error") and isinstance(e.get("body"), dict)
        ]
        for at, entry in enumerate(entries):
            if entry.get("kind") != "api-error" or not entry.get("reasoning"):
                continue
            why = str(entry.get("refused", ""))[:160]
            after = entries[at + 1 :]
            if not after:
                return _result(
                    check,
                    "info",
                    f"request {entry['n']} was refused ({why}); the harness sent nothing more",
                    request=entry["n"],
                    did="gave-up",
                )
            again = after[0]
            if _same(again["body"], entry["body"]):
                return _result(
                    check,
                    "fail",
                    f"request {again['n']} sent request {entry['n']} again unchanged after the"
                    f" API refused it ({why}): it fails the same way",
                    request=entry["n"],
                    did="retried-unchanged",
                )
            if again.get("kind") == "api-error" and again.get("reasoning"):
                return _result(
                    check,
                    "fail",
                    f"request {again['n']} changed what request {entry['n']} sent after the API"
                    f" refused it ({why}), and was refused again for its reasoning",
                    request=entry["n"],
                    did="refused-again",
                )
            return _result(
                check,
                "pass",
                f"request {entry['n']} was refused ({why}); request {again['n']} changed"
                " what it sent and went on",
                request=entry["n"],
                did="changed",
            )
    return _result(check, "not-testable", "no request was refused for its reasoning")


def shape_is(api: str) -> Callable[[ProbeRun], str | None]:
    def applies(run: ProbeRun) -> str | None:
        if run.profile.api != api:
            return f"the harness speaks {run.profile.api}, not {api}"
        return None

    return applies


def long_pause(run: ProbeRun) -> str | None:
    return _long_pause(run)


__all__ = ["back", "idle", "kept", "long_pause", "refused", "shape_is"]
