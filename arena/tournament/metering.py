"""A tournament's games counted into the metrics (`arena.metrics`), as they are played.

The meter is an observer and a table watcher both: a table opening and closing
is a game in flight, each answer the match tells is a decision (counted as it
is made, so a rate over a minute is the decisions per second of that minute
even while a long game is played), and each game recorded is a game played,
with its faults by kind. Its per-event work is one type test and one counter
increment: it is on the path of every decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.protocol.faults import FaultKind
from arena.records import Decision, GameLine, ReplayEvent
from arena.referee.match import GameSpec
from arena.referee.service.lobby import Lobby
from arena.tournament.play.observer import Progress
from arena.tournament.play.tables import Watch
from arena.tournament.report.ratings import Standing

if TYPE_CHECKING:  # prometheus_client is loaded by whoever makes the metrics
    from arena.metrics import Metrics


class GameMeter:
    """Counts games, games in flight, decisions and faults into `metrics`."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics
        for kind in FaultKind:  # every kind shown from the start, at 0
            metrics.faults.labels(kind.value)
        self._decision = metrics.decisions.inc
        self._open: set[str] = set()

    def note(self, text: str) -> None:
        """Notes are the screen's, not the metrics'."""

    def building(self, name: str, running: bool) -> None:
        """A local bot's build has no verdict to count (submissions' builds do)."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """Games are counted as they are played, not from the tournament's start."""

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.metrics.games.inc()
        for record in line.faults:
            self.metrics.faults.labels(record.fault.kind.value).inc()

    def table_opened(self, game: GameSpec) -> Watch:
        if game.game_id not in self._open:
            self._open.add(game.game_id)
            self.metrics.games_in_flight.inc()
        return self._told

    def table_closed(self, game_id: str) -> None:
        if game_id in self._open:
            self._open.discard(game_id)
            self.metrics.games_in_flight.dec()

    def _told(self, event: ReplayEvent) -> None:
        if type(event) is Decision:
            self._decision()


def sessions_by_state(lobby: Lobby | None, saying_hello: int = 0) -> dict[str, int]:
    """The sessions of `lobby` by state, and `saying_hello` streams not yet sessions."""
    if lobby is None:
        return {"hello": saying_hello}
    idle = lobby.idle()
    playing = sum(not s.closed for s in lobby.all_sessions()) - idle
    return {"hello": saying_hello, "idle": idle, "playing": max(0, playing)}
