"""A ladder round's observer: each game's end said on the server's screen, and the ladder told
that its status moved."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from arena.league.screen import Kind, Screen, ScreenEvent
from arena.records import GameLine
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress

SKIPPED = ("skipped:", "did not connect", "before connecting", "refused:", "cannot start:")
"""How a round's line-up says that it skipped a bot (`arena.tournament.play.lineup`), as
against its other notes on a bot ("unchanged since its last build")."""


class RoundRecorder:
    """The rounds' observer: tells the screen each game's end, and the ladder that it moved."""

    def __init__(self, tell: Screen | None, changed: Callable[[], None], round_id: str) -> None:
        self._tell = tell
        self._changed = changed
        self._round = round_id
        self._notes: list[str] = []

    def about(self, names: Iterable[str]) -> dict[str, str]:
        """Why the round skipped each of `names` it skipped (as its line-up says a skip:
        "NAME: did not connect ..."): who a round that could not start sits out, and why."""
        said = {}
        for name in names:
            for text in self._notes:
                about = text.removeprefix(f"{name}: ")
                if about != text and any(word in about for word in SKIPPED):
                    said[name] = about
        return said

    def note(self, text: str) -> None:
        self._notes.append(text)
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {text}"))

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        pass

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self._changed()
        if self._tell is not None:
            order = ", ".join(line.ranking)
            fields = {"round": self._round, "game": line.game, "ranking": list(line.ranking)}
            said = f"ladder {self._round}/{line.game}: {order}"  # the game's id across the league
            self._tell(ScreenEvent(Kind.LADDER_GAME, said, fields))
