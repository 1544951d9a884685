"""The audit as a person reads it in a terminal, drawn from the results document: the figures
in all, the causes by what they cost, the costliest requests, and a line per session. Every
text that came from a file is shown with its control characters made visible."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from ctxconf.terminal.controls import visible_controls

from .words import dollars, rate

# How many rows of each list the console shows (--json and --html hold every one).
SHOWN = 10


def _safe(value: Any) -> str:
    return visible_controls(str(value), also="\n\t")


def _hit_rate(value: float | None) -> str:
    return "N/A (no cache figures)" if value is None else rate(value)


def _lost_line(figures: Mapping[str, Any]) -> str:
    tokens, usd = figures["lost_tokens"], figures["lost_usd"]
    parts = [
        f"{tokens[blame]:,} tokens ({dollars(usd[blame])}) to {label}"
        for blame, label in (
            ("harness", "the harness"),
            ("boundary", "boundaries (model switch, compaction, upgrade)"),
            ("provider", "lifetimes and the provider"),
            ("unknown", "causes not known"),
        )
        if tokens[blame]
    ]
    unpriced = figures["losses_unpriced"]
    tail = f"; {unpriced} unpriced (no price row for the model)" if unpriced else ""
    return ("; ".join(parts) if parts else "nothing") + tail


def comparisons(figures: Mapping[str, Any]) -> list[str]:
    """Where these figures part from those of a tool that reads the records another way."""
    lines = []
    if figures["written_1h_tokens"]:
        lines.append(
            f"{figures['written_1h_tokens']:,} tokens were written for an hour and are priced at "
            f"the hour's rate: {dollars(figures['hour_premium_usd'])} more than a tool that "
            "prices every write at the five minutes' rate shows"
        )
    if figures["placeholder_inputs"]:
        lines.append(
            f"{figures['placeholder_inputs']:,} request(s) give 0 or 1 uncached tokens beside "
            "large reads and writes: exact where the last cache mark ends the prompt (Claude Code "
            "marks its last message), a streaming placeholder where the final count was never "
            "written; the figures take it as given"
        )
    return lines


def _where(step: Mapping[str, Any]) -> str:
    place = f"{step['file']}:{step['line']}" if step["line"] else step["file"]
    return _safe(place)


def print_console(doc: Mapping[str, Any], out: TextIO) -> None:
    figures = doc["figures"]
    sessions = doc["sessions"]
    out.write(
        f"ctxconf audit: {len(sessions)} session(s), {figures['requests']:,} request(s), "
        f"{figures['losses']:,} lost the cache\n"
    )
    out.write(f"  hit rate: {_hit_rate(figures['hit_rate'])}\n")
    out.write(f"  lost: {_lost_line(figures)}\n")
    cost = dollars(figures["cost_usd"])
    if figures["requests_priced"] < figures["requests"] and figures["cost_usd"] is not None:
        cost += f" over {figures['requests_priced']:,} priced request(s)"
    out.write(f"  cost at list prices: {cost}")
    if figures["measured_cost_usd"] is not None:
        out.write(f"; the sources' own: {dollars(figures['measured_cost_usd'])}")
    out.write("\n")
    for line in comparisons(figures):
        out.write(f"  note: {line}\n")
    if doc["causes"]:
        out.write("\nCauses, costliest first:\n")
        for row in doc["causes"][:SHOWN]:
            out.write(
                f"  {_safe(row['kind']):<22} {row['blame']:<9} {row['losses']:>5} losses "
                f"{row['lost_tokens']:>12,} tokens  {dollars(row['lost_usd'])}\n"
            )
    losses = [
        (session, step)
        for session in sessions
        for step in session["timeline"]
        if step["lost"] > 0 and step["cause"] is not None
    ]
    losses.sort(key=lambda pair: ((pair[1]["lost_usd"] or {}).get("usd") or -1, pair[1]["lost"]))
    if losses:
        out.write("\nCostliest requests:\n")
        for session, step in reversed(losses[-SHOWN:]):
            cause = step["cause"]
            lost_usd = step["lost_usd"]
            cost = f"{dollars(lost_usd['usd'])} {lost_usd['label']}" if lost_usd else "N/A"
            out.write(
                f"  {_where(step)}  {_safe(session['harness'])} #{step['index'] + 1}: lost "
                f"{step['lost']:,} tokens ({cost}): {_safe(cause['kind'])} "
                f"[{cause['basis']}] {_safe(cause['detail'])}\n"
            )
            verdict = step["provider_verdict"]
            if verdict is not None and verdict["agrees"] is not None:
                word = "agrees" if verdict["agrees"] else "DISAGREES"
                out.write(f"      the provider says {_safe(verdict['reason'])}: {word}\n")
    if doc["savings"]:
        out.write("\nWhat each fix would have saved on these bodies (both sides simulated):\n")
        for saving in doc["savings"]:
            partial = "" if saving["bodies_complete"] else " (bodies rebuilt in part)"
            out.write(
                f"  {saving['fix']:<16} {saving['read_more_tokens']:>12,} tokens more read  "
                f"{dollars(saving['saved_usd'])}{partial}\n"
            )
    if sessions:
        out.write("\nSessions:\n")
        for session in sessions[-SHOWN * 3 :]:
            f = session["figures"]
            out.write(
                f"  {_safe(session['started'] or '-'):<25} {_safe(session['harness']):<12} "
                f"{_safe(session['session'])[:36]:<36} {f['requests']:>5} req  hit "
                f"{rate(f['hit_rate']):>6}  lost "
                f"{sum(f['lost_tokens'].values()):>10,}\n"
            )
    if doc["problems"]:
        out.write(f"\n{len(doc['problems'])} problem(s) in the files (the rest was read):\n")
        for problem in doc["problems"][:SHOWN]:
            where = problem["file"] + (f":{problem['line']}" if problem["line"] else "")
            out.write(f"  {_safe(where)}: {_safe(problem['message'])}\n")
        if len(doc["problems"]) > SHOWN:
            out.write(f"  … and {len(doc['problems']) - SHOWN} more in --json\n")
