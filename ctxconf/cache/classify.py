"""Where a later request first differs from an earlier one it shares a prefix with, and what
kind of change that is: the system prompt (a date, white space, other text), the tools (added,
removed, reordered, a description or a schema changed), or an earlier message (rewritten, which
one and how; removed; one inserted before it)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace

from .bytediff import byte_diff
from .cause import ANCHORS, Cause
from .prefix import Shared, branches, common_bytes
from .reasoning import REASONING_KINDS
from .request import CacheRequest, Unit

# A date or a time of day, as harnesses write them into prompts.
_MONTHS = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_DAYS = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*"
DATE_OR_TIME = re.compile(
    r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\b\d{1,2}:\d{2}(?::\d{2})?\b"
    rf"|\b{_MONTHS} \d{{1,2}}\b|\b\d{{1,2}} {_MONTHS}|\b{_DAYS}\b|\b1\d{{9}}(?:\d{{3}})?\b"
)
# White space as it shows in canonical JSON: escaped line ends and tabs, and spaces.
_WHITE = re.compile(rb"\\[nrt]|\s")
_ID_KEY = re.compile(rb'"(id|tool_use_id|tool_call_id|call_id)":"[^"]*$')
_KEY = re.compile(rb'"([A-Za-z_][A-Za-z0-9_]*)":')
# The fields that carry a model's reasoning inside a unit of another kind: Gemini's signature on
# a part, Chat's reasoning_content beside a message's content.
_REASONING_FIELDS = ("thoughtSignature", "thought_signature", "reasoning_content")
_IN_REASONING = re.compile(
    rb'"(signature|thinking|data|encrypted_content|thoughtSignature|thought_signature'
    rb'|reasoning_content)":"[^"]*$'
)
_WINDOW = 24


def _span(a: bytes, b: bytes, start: int) -> tuple[int, int, int]:
    """Where a and b differ: the common start and, from it, how far each runs to the common
    end."""
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    return start, len(a) - end, len(b) - end


def mentions_time(a: bytes, b: bytes, start: int) -> bool:
    """Whether a date or a time of day overlaps the changed bytes of either side."""
    _, a_end, b_end = _span(a, b, start)
    for data, end in ((a, a_end), (b, b_end)):
        low = max(0, start - _WINDOW)
        text = data[low : end + _WINDOW].decode("utf-8", errors="ignore")
        # Offsets in characters of the changed part within `text`.
        first = len(data[low:start].decode("utf-8", errors="ignore"))
        last = first + len(data[start:end].decode("utf-8", errors="ignore"))
        for found in DATE_OR_TIME.finditer(text):
            if found.start() <= max(last, first + 1) and found.end() > first:
                return True
    return False


def only_white_space(a: bytes, b: bytes) -> bool:
    return _WHITE.sub(b"", a) == _WHITE.sub(b"", b)


def _fields(a: bytes, b: bytes) -> tuple[list[str], list[str]]:
    """The JSON keys `a` holds that `b` does not, and those `b` holds that `a` does not."""
    keys_a = Counter(k.decode("ascii") for k in _KEY.findall(a))
    keys_b = Counter(k.decode("ascii") for k in _KEY.findall(b))
    return sorted(keys_a - keys_b), sorted(keys_b - keys_a)


def _how(a: Unit, b: Unit, offset: int) -> str:
    if a.order_free == b.order_free:
        return "key order"
    if only_white_space(a.data, b.data):
        return "white space"
    dropped, added = _fields(a.data, b.data)
    if dropped and not added:
        return f"its field{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} dropped"
    if added and not dropped:
        return f"field{'s' if len(added) > 1 else ''} {', '.join(added)} added"
    if mentions_time(a.data, b.data, offset):
        return "a date or time"
    if _ID_KEY.search(b.data[:offset]):
        return "a tool call id"
    return "text"


def _diffed(kind: str, detail: str, a: Unit, b: Unit) -> Cause:
    offset = common_bytes(a.data, b.data)
    diff = byte_diff(a.data, b.data, offset)
    return Cause(kind, ANCHORS[kind], detail, b.path, offset, diff)


def _tools_cause(earlier: CacheRequest, later: CacheRequest, a: Unit, b: Unit) -> Cause:
    before = [t.name for t in earlier.tools]
    after = [t.name for t in later.tools]
    added = [n for n in after if n not in before]
    removed = [n for n in before if n not in after]
    if added:
        extra = f"; removed {', '.join(removed)}" if removed else ""
        return _diffed("tools-added", f"tool added: {', '.join(added)}{extra}", a, b)
    if removed:
        return _diffed("tools-removed", f"tool removed: {', '.join(removed)}", a, b)
    if before != after:
        return _diffed("tools-reordered", f"tools reordered: {', '.join(after)}", a, b)
    for old, new in zip(earlier.tools, later.tools, strict=True):
        if old.description != new.description:
            return _diffed("tool-description", f"tool {new.name}: description changed", a, b)
        if old.schema != new.schema:
            return _diffed("tool-schema", f"tool {new.name}: schema changed", a, b)
    return _diffed("tool-definition", f"a tool's definition changed at {b.path}", a, b)


def _system_cause(a: Unit, b: Unit) -> Cause:
    offset = common_bytes(a.data, b.data)
    if a.section != b.section:
        return _diffed("system-text", "the system prompt changed length", a, b)
    if mentions_time(a.data, b.data, offset):
        return _diffed("system-date", "the system prompt holds a date or time", a, b)
    if only_white_space(a.data, b.data):
        return _diffed("system-whitespace", "the system prompt's white space changed", a, b)
    return _diffed("system-text", "the system prompt's text changed", a, b)


def _message_units(request: CacheRequest, message: int) -> list[bytes]:
    return [u.data for u in request.units if u.section == "messages" and u.message == message]


def is_reasoning(unit: Unit) -> bool:
    """A unit that is the model's reasoning: a thinking block, a reasoning item, a thought."""
    return unit.kind in REASONING_KINDS or b'"thought":true' in unit.data


def _reasoning_cause(later: CacheRequest, a: Unit, b: Unit) -> Cause | None:
    """A change to the model's reasoning: dropped by the provider, stripped, moved or rewritten
    by the harness; None for a change of anything else."""
    where = f"message {a.message} ({a.role or '?'})"
    if is_reasoning(a):
        cut = later.reasoning_cut
        if a.path in later.dropped or (cut is not None and a.message < cut):
            detail = (
                f"the provider drops {where}'s {a.kind} at the next message on model"
                f" {later.model or '?'}, as it drops every earlier turn's (no harness's doing)"
            )
            return _diffed("reasoning-dropped", detail, a, b)
        if is_reasoning(b) and a.message == b.message and a.kind == b.kind:
            return _diffed("reasoning-rewritten", f"{where}'s {a.kind} was rewritten", a, b)
        if any(is_reasoning(u) and a.data.endswith(u.data) for u in later.units):
            return _diffed("reasoning-moved", f"{where}'s {a.kind} was moved from its place", a, b)
        return _diffed("reasoning-stripped", f"{where}'s {a.kind} was left out", a, b)
    dropped, _ = _fields(a.data, b.data)
    gone = [name for name in _REASONING_FIELDS if name in dropped]
    if gone:
        return _diffed("reasoning-stripped", f"{where}'s {gone[0]} was left out", a, b)
    offset = common_bytes(a.data, b.data)
    inside = _IN_REASONING.search(a.data[:offset])
    if inside and inside.group(1).decode() in _REASONING_FIELDS:
        detail = f"{where}'s {inside.group(1).decode()} was rewritten"
        return _diffed("reasoning-rewritten", detail, a, b)
    return None


def _message_cause(earlier: CacheRequest, later: CacheRequest, a: Unit, b: Unit) -> Cause:
    where = f"message {a.message} ({a.role or '?'})"
    reasoning = _reasoning_cause(later, a, b)
    if reasoning is not None:
        return replace(reasoning, detail=reasoning.detail + _repeats(later, b))
    following = _message_units(earlier, a.message + 1)
    if following and following == _message_units(later, b.message):
        return _diffed("message-removed", f"{where} was removed", a, b)
    kept = _message_units(earlier, a.message)
    if kept and kept == _message_units(later, b.message + 1):
        detail = f"a message ({b.role or '?'}) was inserted before {where}"
        return _diffed("message-inserted", detail, a, b)
    if a.message != b.message:  # one side's message ends where the other's goes on
        how = "its last blocks dropped" if b.message > a.message else "blocks added at its end"
    else:
        how = _how(a, b, common_bytes(a.data, b.data))
    return _diffed("message-rewritten", f"{where} was rewritten: {how}{_repeats(later, b)}", a, b)


def _repeats(request: CacheRequest, start: Unit) -> str:
    """Blocks from `start` on that say again what the block before them in the same message
    says (a tool result sent twice), as words to add."""
    units = request.units
    first = units.index(start)
    twice = [
        (units[i - 1].path, units[i].path, units[i].kind)
        for i in range(max(first, 1), len(units))
        if units[i].message == units[i - 1].message
        and units[i].section == "messages"
        and units[i - 1].data.endswith(units[i].data)
    ]
    if not twice:
        return ""
    was, again, kind = twice[0]
    more = f", and {len(twice) - 1} more" if len(twice) > 1 else ""
    return f"; a {kind} block repeated: {again} says again what {was} says{more}"


def content_cause(earlier: CacheRequest, later: CacheRequest, found: Shared) -> Cause | None:
    """The first change `later` makes to what `earlier` sent, None when it keeps all of it,
    is itself a prefix of it, or only sends another newest message after the same history."""
    k = found.units
    if found.full or k >= len(later.units) or branches(earlier, later, found):
        return None
    a, b = earlier.units[k], later.units[k]
    if "tools" in (a.section, b.section):
        return _tools_cause(earlier, later, a, b)
    if "system" in (a.section, b.section):
        return _system_cause(a, b)
    return _message_cause(earlier, later, a, b)


__all__ = ["DATE_OR_TIME", "content_cause", "is_reasoning", "mentions_time", "only_white_space"]
