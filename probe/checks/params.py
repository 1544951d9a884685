"""The params-stable check: the parameters that fork a provider's cache (the model, thinking,
reasoning effort, `tool_choice`) stay the same through a session, across its processes. A
change forks the cache whatever the prefix: Anthropic loses everything from the first message
on (the whole cache with the model), and another model is another cache everywhere. Only the
model-switch scenario asks for a change, at its switch's turn: the parameters are judged on each
side of it, and any other change is the harness's own.
"""

from __future__ import annotations

from ..harness import ProbeRun
from ..usage_figures import played_requests
from .changes import eras
from .model import CheckDef, CheckResult, Sent, _result

PARAMS = ("model", "thinking", "effort", "tool_choice")
SHOWN = 60


def _shown(value: str | None) -> str:
    return "(none)" if value is None else value[:SHOWN]


def params_stable(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    judged = 0
    seen: dict[str, set[str | None]] = {name: set() for name in PARAMS}
    stretches = []
    for session, sent in zip(run.sessions, sessions, strict=False):
        played = dict((e["n"], r) for e, r in played_requests(session))
        for era in eras(run, session, sent):
            stretches.append([(s.n, played[s.n]) for s in era if s.n in played])
    for loop in stretches:
        judged += len(loop)
        for name in PARAMS:
            first = loop[0][1].params.get(name) if loop else None
            for n, request in loop:
                value = request.params.get(name)
                seen[name].add(value)
                if value != first:
                    return _result(
                        check,
                        "fail",
                        f"request {n} changed {name} from {_shown(first)} to {_shown(value)}: "
                        "the cache forks",
                        parameter=name,
                        values=sorted(_shown(v) for v in {first, value}),
                    )
    if not judged:
        return _result(check, "error", "no request of the loop was played by the mock's cache")
    sent_values = {name: _shown(next(iter(values))) for name, values in seen.items()}
    said = ", ".join(f"{name} {value}" for name, value in sent_values.items())
    first = stretches[0][0][1].params if stretches and stretches[0] else {}
    switched = [
        f"{name} {_shown(first.get(name))} → {_shown(later[0][1].params.get(name))}"
        for later in stretches[1:]
        if later
        for name in PARAMS
        if later[0][1].params.get(name) != first.get(name)
    ]
    if switched:
        said = f"the same on each side of the switch the scenario asked for ({'; '.join(switched)})"
        return _result(check, "pass", f"{said}, in {judged} requests", switched=switched)
    return _result(
        check,
        "pass",
        f"the same in {judged} requests: {said}",
        **sent_values,
    )


__all__ = ["params_stable"]
