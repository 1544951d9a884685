"""Hypothesis strategies for the history area: valid sessions that reach every rule.

A history session starts with `start`, then turns (a person's message, the model's answers and
calls, their results, `end_turn`) and, between turns, the operations on the tree: branch, fork,
switch, checkpoint, rewind, trim and the ladder. Crashes (torn or not) are each followed by a
reload; a damaged transcript ends the session but for what can still be asked of it.

The builder keeps what a harness would know: the turn in progress and its calls that lack a
result, each conversation's entries and tip, the labels, what the transcript surely holds and
the person's pending message. Steps the reference refuses (a write in a turn, a branch to an
unfinished call, a rewind to a dropped label) are drawn too: their refusals are behaviour. The
model is an approximation where only the reference can know (whether a trim or a compaction
appended an entry); a step it gets wrong is a refusal, never an invalid session: every id is
fresh, `end_turn` comes only when the turn's calls all have results, a torn crash only right
after a write known to have happened, `damage` only of an entry known to be written.
"""

from __future__ import annotations

import copy
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from ...fuzzing import Case, Draw, only_ops
from ...fuzzing import choice as _choice
from ...fuzzing import maybe as _maybe
from .texts import (
    ASSISTANT_TEXTS,
    COMMANDS,
    FORK_NAMES,
    HISTORY_OPS,
    IMAGES,
    LABELS,
    PATHS,
    REPORTS,
    RESULT_SIZES,
    SHORT_RESULTS,
    SUMMARIES,
    TOOLS,
    TRIM_BUDGETS,
    USER_TEXTS,
    WINDOWS,
    call_args,
    result_text,
)

# Weights of the ops; each state of the session allows some of them (`_Builder._allowed`).
HISTORY_OP_WEIGHTS = (14, 3, 1, 1, 8, 8, 8, 1, 1, 1, 1, 3, 2, 2, 3, 3, 3, 3, 3, 3)
# The operations that write between turns, and are refused while a turn is open.
_BETWEEN = ("branch", "fork", "switch", "checkpoint", "rewind", "trim", "compact", "command")
_LOOKS = ("request", "transcript", "tree")


@dataclass
class _Entry:
    kind: str
    parent: str | None
    calls: int = 0  # an assistant's calls


@dataclass
class _Conversation:
    entries: dict[str, _Entry] = field(default_factory=dict)  # in append order
    tip: str | None = None
    labels: dict[str, tuple[str, bool]] = field(default_factory=dict)  # -> (entry, completed)

    def path(self, tip: str | None = None) -> list[str]:
        at, path = self.tip if tip is None else tip, []
        while at is not None:
            path.append(at)
            at = self.entries[at].parent
        return path[::-1]

    def append(self, entry_id: str, kind: str, calls: int = 0) -> None:
        self.entries[entry_id] = _Entry(kind, self.tip, calls)
        self.tip = entry_id

    def clean(self, target: str) -> bool:
        """Whether every call on the path to `target` has its result there."""
        waiting = 0
        for entry_id in self.path(target):
            entry = self.entries[entry_id]
            waiting += entry.calls if entry.kind == "assistant" else -(entry.kind == "result")
        return waiting == 0


@dataclass
class _Durable:
    """What the transcript holds: the state at the last write."""

    conversations: dict[str, _Conversation] = field(
        default_factory=lambda: {"main": _Conversation()}
    )
    current: str = "main"
    pending: tuple[str, str] | None = None  # the person's message of an unfinished turn


@dataclass
class _Builder:
    """What a harness knows while a history session is generated, and how each step is drawn."""

    draw: Draw
    steps: list[dict[str, Any]] = field(default_factory=list)
    live: _Durable = field(default_factory=_Durable)
    durable: _Durable = field(default_factory=_Durable)
    written: set[str] = field(default_factory=set)  # given ids the transcript surely holds
    turn: list[str] = field(default_factory=list)  # the open turn's entries ([] : none open)
    waiting: list[str] = field(default_factory=list)  # the open turn's calls without a result
    last: str = ""  # the kind of the open turn's newest entry
    overflowed: bool = False  # an overflow since the turn's last `user` or `result`
    crashed: bool = False  # only `reload` may follow
    refused: bool = False  # a reload found the transcript damaged: nothing is loaded
    damaged: bool = False
    # The last write since start or reload, when known for sure: "pending" (a turn's first
    # message) or "turn" (an end_turn's); "" : none, or one whose records are not known.
    last_write: str = ""
    last_turn: list[str] = field(default_factory=list)  # the entries the last end_turn wrote
    counter: int = 0
    ops: tuple[tuple[str, ...], tuple[int, ...]] = (HISTORY_OPS, HISTORY_OP_WEIGHTS)

    # -- what may come next ---------------------------------------------------------------------

    @property
    def conversation(self) -> _Conversation:
        return self.live.conversations[self.live.current]

    def _allowed(self) -> set[str]:
        if self.crashed:
            return {"reload"}
        if self.refused:
            return {"request", "retry", "transcript", "tree"}
        allowed = {*_LOOKS, "crash"}
        if self.written and not self.damaged:
            allowed.add("damage")
        if not self.turn:
            return allowed | {"user", "retry", *_BETWEEN}
        allowed |= set(_BETWEEN)  # refused as busy: drawn less often (see step)
        if self.waiting:
            return allowed | {"result"}
        if self.last == "assistant":
            return allowed | {"end_turn"}
        allowed.add("assistant")
        if not self.overflowed:
            allowed.add("overflow")
        return allowed

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def step(self) -> bool:
        """Draw one more step; False when the state allows none of the ops drawn from."""
        allowed = self._allowed()
        options = [
            (op, self._weight(op, weight))
            for op, weight in zip(*self.ops, strict=True)
            if op in allowed
        ]
        if not options:
            return False
        op = _choice(self.draw, [o for o, _ in options], [w for _, w in options])
        self.steps.append(getattr(self, f"_{op}")())
        # Most operations are looked at at once, so that what they did shows.
        looks = [look for look in _LOOKS if look in self.ops[0]]
        if op not in _LOOKS and not self.crashed and looks and _maybe(self.draw, 50):
            look = _choice(self.draw, looks, [(6, 2, 2)[_LOOKS.index(x)] for x in looks])
            self.steps.append({"op": look})
        return True

    def _weight(self, op: str, weight: int) -> int:
        """`op`'s weight now: a turn mostly goes on, a refusal is drawn now and then."""
        if self.turn:
            if op in _BETWEEN:
                return 1  # refused as busy
            return weight * 6 if op in ("assistant", "result", "end_turn") else weight
        conversation = self.conversation
        if op == "checkpoint" and conversation.tip is None:
            return 1
        if op == "rewind":
            return weight + 3 if conversation.labels else 1
        if op == "retry":
            return 4 if self.live.pending is not None and not self.refused else 1
        return weight

    # -- turns ----------------------------------------------------------------------------------

    def _images(self) -> list[str]:
        count = _choice(self.draw, (0, 1, 2), (6, 3, 1))
        return [str(name) for name in self.draw(st.permutations(IMAGES))[:count]]

    def _user(self) -> dict[str, Any]:
        entry_id = self.fresh("u")
        text = str(self.draw(st.sampled_from(USER_TEXTS)))
        step: dict[str, Any] = {"op": "user", "id": entry_id, "text": text}
        images = self._images()
        if images:
            step["images"] = images
        self.durable.pending = (entry_id, text)
        self.last_write = "pending"
        self._open(entry_id)
        return step

    def _open(self, entry_id: str) -> None:
        self.conversation.append(entry_id, "user")
        self.turn, self.last, self.overflowed = [entry_id], "user", False

    def _assistant(self) -> dict[str, Any]:
        entry_id = self.fresh("a")
        step: dict[str, Any] = {"op": "assistant", "id": entry_id}
        text = str(self.draw(st.sampled_from(ASSISTANT_TEXTS)))
        if text:
            step["text"] = text
        count = _choice(self.draw, (0, 1, 2, 3), (5, 4, 2, 1))
        calls: list[dict[str, Any]] = []
        for _ in range(count):
            tool = str(self.draw(st.sampled_from(TOOLS)))
            path = str(self.draw(st.sampled_from(PATHS)))
            args = call_args(tool, path, _maybe(self.draw, 30))
            calls.append({"call": self.fresh("c"), "tool": tool, "args": args})
        if calls:
            step["calls"] = calls
            self.waiting = [str(call["call"]) for call in calls]
        elif not text:
            step["text"] = ASSISTANT_TEXTS[0]  # a final answer says something
        self.conversation.append(entry_id, "assistant", len(calls))
        self.turn.append(entry_id)
        self.last = "assistant"
        return step

    def _result(self) -> dict[str, Any]:
        call = str(self.draw(st.sampled_from(self.waiting)))
        self.waiting.remove(call)
        entry_id = self.fresh("r")
        lines = self.draw(st.sampled_from(RESULT_SIZES))
        short = self.draw(st.integers(0, len(SHORT_RESULTS) - 1))
        step: dict[str, Any] = {
            "op": "result",
            "id": entry_id,
            "call": call,
            "text": result_text(lines, short),
        }
        images = self._images() if _maybe(self.draw, 25) else []
        if images:
            step["images"] = images
        if _maybe(self.draw, 15):
            step["error"] = True
        if _maybe(self.draw, 45):
            step["uneventful"] = True
        self.conversation.append(entry_id, "result")
        self.turn.append(entry_id)
        self.last, self.overflowed = "result", False
        return step

    def _end_turn(self) -> dict[str, Any]:
        self.written.update(self.turn)
        self.last_turn = self.turn
        self.turn, self.last = [], ""
        self.live.pending = None
        self.durable = copy.deepcopy(self.live)
        self.last_write = "turn"
        return {"op": "end_turn"}

    def _overflow(self) -> dict[str, Any]:
        self.overflowed = True
        return self._ladder("overflow")

    # -- crashes --------------------------------------------------------------------------------

    def _crash(self) -> dict[str, Any]:
        step: dict[str, Any] = {"op": "crash"}
        if self.last_write and _maybe(self.draw, 40):
            step["torn"] = True
            if self.last_write == "pending":
                self.durable.pending = None
            else:
                # Which record of the end_turn write was cut short is the implementation's
                # business: none of that turn's entries is damaged from now on.
                self.written.difference_update(self.last_turn)
        self.live = copy.deepcopy(self.durable)
        self.turn, self.waiting, self.last = [], [], ""
        self.crashed = True
        return step

    def _reload(self) -> dict[str, Any]:
        self.crashed = False
        self.refused = self.damaged
        self.last_write = ""
        return {"op": "reload"}

    def _damage(self) -> dict[str, Any]:
        self.damaged = True
        return {"op": "damage", "entry": str(self.draw(st.sampled_from(sorted(self.written))))}

    def _retry(self) -> dict[str, Any]:
        pending = self.live.pending
        if pending is not None and not self.refused:
            self._open(pending[0])
        return {"op": "retry"}

    # -- looking --------------------------------------------------------------------------------

    def _request(self) -> dict[str, Any]:
        return {"op": "request"}

    def _transcript(self) -> dict[str, Any]:
        return {"op": "transcript"}

    def _tree(self) -> dict[str, Any]:
        return {"op": "tree"}

    # -- between turns --------------------------------------------------------------------------

    def _between(self, step: dict[str, Any]) -> dict[str, Any]:
        """A writing operation: refused mid-turn; else its writes are of records not known here
        (a torn crash right after would cut one short)."""
        if not self.turn:
            self.durable = copy.deepcopy(self.live)
            self.last_write = ""
        return step

    def _branch(self) -> dict[str, Any]:
        ours = list(self.conversation.entries)
        others = [
            e
            for name, c in self.live.conversations.items()
            if name != self.live.current
            for e in c.entries
        ]
        pool = _choice(self.draw, (ours, others, ["u999"]), (8, 1, 1)) or ours or ["u999"]
        target = str(self.draw(st.sampled_from(pool)))
        conversation = self.conversation
        if not self.turn and target in conversation.entries and conversation.clean(target):
            entry = conversation.entries[target]
            conversation.tip = entry.parent if entry.kind == "user" else target
        return self._between({"op": "branch", "to": target})

    def _fork(self) -> dict[str, Any]:
        name = str(self.draw(st.sampled_from(FORK_NAMES)))
        if _maybe(self.draw, 10):
            name = "main"
        if not self.turn and name not in self.live.conversations:
            source = self.conversation
            copies = _Conversation()
            for k, entry_id in enumerate(source.path(), start=1):
                copies.append(
                    f"{name}-{k}", source.entries[entry_id].kind, source.entries[entry_id].calls
                )
            self.live.conversations[name] = copies
            self.live.current = name
        return self._between({"op": "fork", "name": name})

    def _switch(self) -> dict[str, Any]:
        names = [*self.live.conversations, "nowhere"]
        target = str(self.draw(st.sampled_from(names)))
        if not self.turn and target in self.live.conversations:
            self.live.current = target
        return self._between({"op": "switch", "to": target})

    def _checkpoint(self) -> dict[str, Any]:
        label = str(self.draw(st.sampled_from(LABELS)))
        conversation = self.conversation
        if not self.turn and conversation.tip is not None and label not in conversation.labels:
            conversation.labels[label] = (conversation.tip, False)
        return self._between({"op": "checkpoint", "label": label})

    def _rewind(self) -> dict[str, Any]:
        conversation = self.conversation
        known = sorted(conversation.labels)
        elsewhere = sorted(
            {label for c in self.live.conversations.values() for label in c.labels} - set(known)
        )
        pool = _choice(self.draw, (known, elsewhere, ["never-set"]), (8, 1, 1)) or ["never-set"]
        label = str(self.draw(st.sampled_from(pool)))
        digest = self.fresh("d")
        report = str(self.draw(st.sampled_from(REPORTS)))
        entry, completed = conversation.labels.get(label, ("", True))
        if not self.turn and not completed and entry in conversation.path():
            conversation.tip = entry
            conversation.append(digest, "digest")
            conversation.labels[label] = (entry, True)
        return self._between({"op": "rewind", "label": label, "id": digest, "report": report})

    def _trim(self) -> dict[str, Any]:
        tokens = self.draw(st.sampled_from(TRIM_BUDGETS))
        return self._between({"op": "trim", "id": self.fresh("t"), "tokens": tokens})

    def _ladder(self, op: str) -> dict[str, Any]:
        step: dict[str, Any] = {"op": op, "id": self.fresh("s")}
        if _maybe(self.draw, 80):
            step["summary"] = str(self.draw(st.sampled_from(SUMMARIES)))
        return step

    def _compact(self) -> dict[str, Any]:
        return self._between(self._ladder("compact"))

    def _command(self) -> dict[str, Any]:
        text = str(self.draw(st.sampled_from(COMMANDS)))
        step: dict[str, Any] = {"op": "command", "text": text}
        if text.startswith(("/shake", "/compact")):
            step["id"] = self.fresh("k")
        if text.startswith("/compact"):
            step["summary"] = str(self.draw(st.sampled_from(SUMMARIES)))
        if text.startswith(("/shake", "/compact")):
            return self._between(step)
        return step


@st.composite
def history_starts(draw: Draw) -> dict[str, Any]:
    """A `start` step: the model's window and whether it sees images."""
    window = draw(st.sampled_from(WINDOWS))
    return {"op": "start", "window": window, "vision": _maybe(draw, 60)}


@st.composite
def _step_then_more(draw: Draw, builder: _Builder, max_steps: int) -> bool:
    builder.draw = draw
    if not builder.step():
        return False
    # A session whose transcript was found damaged has little left to show.
    return len(builder.steps) < max_steps and _maybe(draw, 60 if builder.refused else 97)


@st.composite
def history_sessions(draw: Draw, max_steps: int = 80, ops: Collection[str] | None = None) -> Case:
    """A session of the history area, as a case without its expected texts: `{"steps": [...]}`,
    its first step `start` (whatever `ops` names); about one in twenty is larger than the
    bound."""
    chosen = only_ops(HISTORY_OPS, HISTORY_OP_WEIGHTS, ops)
    if _maybe(draw, 5):
        max_steps *= 3
    builder = _Builder(draw, ops=chosen)
    builder.steps.append(draw(history_starts()))
    while draw(_step_then_more(builder, max_steps)):
        pass
    return {"steps": builder.steps}
