"""The prompts an implicit cache holds (OpenAI's automatic caching, Gemini's), as a session keeps
them: per key (a route, a model), those still alive and those whose idle time ran out, each list
in the order sent. Times only move on, and a prompt is refreshed only while alive, so one that
ran out stays out: each request moves what ran out since the last one (`prune`), rather than
asking every prompt again. A time given out of order, or after a time of NaN (which orders with
nothing), asks every prompt again."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Generic, TypeVar

Key = TypeVar("Key", bound=Hashable)


@dataclass
class HeldPrompt:
    request: int
    last_used: float
    written: float  # when the request that holds it was sent
    idle: float  # how long it lives unused

    @property
    def end(self) -> float:
        return self.last_used + self.idle

    def alive(self, t: float) -> bool:
        return self.written < t < self.end


class HeldPrompts(Generic[Key]):
    def __init__(self) -> None:
        self.alive: dict[Key, list[HeldPrompt]] = {}
        self.gone: dict[Key, list[HeldPrompt]] = {}
        self._pruned_at = float("-inf")

    def add(self, key: Key, prompt: HeldPrompt) -> None:
        self.alive.setdefault(key, []).append(prompt)

    def prune(self, t: float) -> None:
        """Move the prompts that ran out by `t` from alive to gone."""
        if not t >= self._pruned_at:
            for key, gone in self.gone.items():
                self.alive.setdefault(key, []).extend(gone)
                self.alive[key].sort(key=lambda h: h.request)
            self.gone = {}
        for key, prompts in self.alive.items():
            if any(t >= h.end for h in prompts):
                self.gone.setdefault(key, []).extend(h for h in prompts if t >= h.end)
                self.gone[key].sort(key=lambda h: h.request)
                self.alive[key] = [h for h in prompts if t < h.end]
        self._pruned_at = t


__all__ = ["HeldPrompt", "HeldPrompts"]
