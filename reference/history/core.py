"""What every step of a `HistorySession` shares: its state, its transcript, its checks."""

from __future__ import annotations

from .config import HistoryConfig
from .entries import Entry
from .request import RequestView
from .state import HistoryState
from .store import Record, Store, entry_record
from .tree import tree_view


class HistoryStepError(ValueError):
    """A step the session cannot take: the case or the harness is wrong, not the session."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class SessionCore:
    """The state of a session and the helpers its steps share."""

    def __init__(self, config: HistoryConfig | None = None, *, window: int, vision: bool) -> None:
        self.config = config if config is not None else HistoryConfig.load()
        self.window = window
        self.vision = vision
        self.store = Store()
        self.state = HistoryState(self.config.main)
        self._t = self.config.texts
        self._unwritten: list[Record] = []  # the open turn's records, written at its end
        self._turn_open = False
        self._crashed = False
        self._loaded = True  # False after a refused reload
        self._given: set[str] = set()  # every id a step gave, kept or not

    def request_view(self) -> RequestView:
        """The blocks of the request the current conversation's tip makes."""
        return self.state.conversation.view(self.config)

    def tree(self) -> str:
        """The current conversation as a tree."""
        self._not_crashed("tree")
        if not self._loaded:
            return self._t.render("not_loaded")
        # rule: hist.command.tree
        return tree_view(self.state.conversation, self._t)

    @property
    def _tip(self) -> str | None:
        return self.state.conversation.tip

    def _path(self) -> list[Entry]:
        return self.state.conversation.path()

    def _append(self, entry: Entry) -> None:
        """An entry of the open turn: held in memory until the turn ends."""
        record = entry_record(self.state.current, entry)
        self.state.apply(record)
        self._unwritten.append(record)

    def _write(self, records: list[Record]) -> None:
        """One write of `records`, each applied to the state as it is written."""
        self.store.write(records)
        for record in records:
            self.state.apply(record)

    def _new_id(self, entry_id: str) -> None:
        if entry_id in self._given or entry_id in self.state.ids():
            raise HistoryStepError("hist-id-reused", f"id {entry_id} is already used")
        self._given.add(entry_id)

    def _not_crashed(self, what: str) -> None:
        if self._crashed:
            message = f"{what} after a crash: only reload may follow a crash"
            raise HistoryStepError("hist-after-crash", message)

    def _live(self) -> None:
        self._not_crashed("a step")
        if not self._loaded:
            message = "nothing is loaded: the last reload was refused"
            raise HistoryStepError("hist-not-loaded", message)

    def _in_turn(self, what: str) -> None:
        if not self._turn_open:
            message = f"{what} outside a turn: a turn opens with a user step"
            raise HistoryStepError("hist-no-turn", message)
