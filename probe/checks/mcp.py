"""The late-MCP check: the probe's MCP server lists its tools only after the session's first
request, then, started again by a resumed harness, lists them in reverse order. The tool list is
made with the system prompt and fixed until the next making (`pfx.tools.fixed`), and no bundled
scenario makes it again, so every request of the session offers the tools of its first: the late
tools do not join mid-session, and a reordered listing changes no request (`pfx.system.load`).
"""

from __future__ import annotations

from itertools import pairwise

from ..harness import ProbeRun
from .model import CheckDef, CheckResult, Sent, _count, _result


def _ours(names: list[str], tools: tuple[str, ...]) -> list[str]:
    """The names of the MCP server's tools as the harness offers them (often with a prefix of
    the server's name: `mcp__probe__lantern_alpha`)."""
    return [name for name in names if any(tool in name for tool in tools)]


def mcp_tools(check: CheckDef, run: ProbeRun, sessions: list[list[Sent]]) -> CheckResult:
    tools = run.scenario.mcp_tools
    changes = []
    for sent in sessions:
        for before, after in pairwise(sent):
            old = [t.name for t in before.request.tools]
            new = [t.name for t in after.request.tools]
            if before.request.canonical_tools() == after.request.canonical_tools():
                continue
            joined = [n for n in _ours(new, tools) if n not in old]
            if joined:
                how = f"the late MCP tools {', '.join(joined[:4])} joined the list"
            elif _ours(old, tools) != _ours(new, tools) and sorted(old) == sorted(new):
                how = "the MCP server's tools came back in another order"
            else:
                how = "the tool list changed"
            resume = " after a resume" if before.process != after.process else ""
            changes.append({"request": after.n, "how": how + resume})
    first_tools = [t.name for t in sessions[0][0].request.tools] if sessions[0] else []
    figures = {"mcp_tools_first": _ours(first_tools, tools), "changes": changes[:10]}
    if not changes:
        return _result(
            check,
            "pass",
            f"the tool list stayed fixed while the MCP server's {_count(len(tools), 'tool')}"
            " came late and came back reordered",
            **figures,
        )
    first = changes[0]
    return _result(
        check,
        "fail",
        f"request {first['request']}: {first['how']} ({_count(len(changes), 'change')})",
        **figures,
    )


__all__ = ["mcp_tools"]
