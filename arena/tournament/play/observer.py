"""What the terminal (or the web page, or a test) is told while a tournament runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.records import GameLine
from arena.tournament.report.ratings import Standing


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int
    started: float
    """Monotonic time when play began."""
    played_now: int
    """Games played in this run (not counting those of a resumed run's past)."""


class Observer(Protocol):
    """What the terminal (or a test) is told while a tournament runs."""

    def note(self, text: str) -> None: ...

    def building(self, name: str, running: bool) -> None:
        """A bot's build began (`running`) or ended: a screen can show each one's time so far."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None: ...

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None: ...


class Observers:
    """Several observers told alike: the terminal and the web page, say."""

    def __init__(self, *observers: Observer) -> None:
        self._observers = observers

    def note(self, text: str) -> None:
        for observer in self._observers:
            observer.note(text)

    def building(self, name: str, running: bool) -> None:
        for observer in self._observers:
            observer.building(name, running)

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        for observer in self._observers:
            observer.started(folder, entrants, progress)

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        for observer in self._observers:
            observer.game_finished(line, table, progress)
