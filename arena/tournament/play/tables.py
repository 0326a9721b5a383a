"""Where a game is played: on this referee's sessions, or somewhere else (hosts of a cluster).

The runner decides which game is next and records it once it ends; a `Tables`
plays it. The local tables borrow a session of every bot from the lobby of the
referee in this process; a cluster's tables hand the game to a host on another
machine, which plays it the same way on a referee of its own. Either way the
game's dice come from the seed and the game's deal key, so the same game is the
same game wherever it is played.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from arena.errors import ArenaError
from arena.records import ReplayEvent
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import AbsentSeat, GameRecord, GameSpec, Match, Seat
from arena.referee.service.lobby import Lobby
from arena.tournament.info import TournamentInfo

Watch = Callable[[ReplayEvent], None]
"""Told each event of a game as the match makes it (a table watcher's, for one game)."""


class TablesGoneError(ArenaError):
    """No table is left to play on (every host of a cluster is gone): the run must stop.

    The game it was handed is not recorded, so a resume plays it."""


class TableWatcher(Protocol):
    """Who follows the games in play event by event (the web page's spectator).

    Events come as the match makes them, dice and all: the watcher decides
    what of them may be shown, and when.
    """

    def table_opened(self, game: GameSpec) -> Watch:
        """A game begins: what its match is to tell each event as it makes it. It is called
        on the path of every decision, so let it be cheap (a list's `append`, say)."""
        ...

    def table_closed(self, game_id: str) -> None:
        """The game is over or abandoned (`Observer.game_finished` first, if it is recorded)."""


class TableWatchers:
    """Several table watchers told alike: the web page and the metrics, say."""

    def __init__(self, *watchers: TableWatcher) -> None:
        self._watchers = watchers

    def table_opened(self, game: GameSpec) -> Watch:
        watches = [watcher.table_opened(game) for watcher in self._watchers]
        if len(watches) == 1:
            return watches[0]

        def watch(event: ReplayEvent) -> None:
            for each in watches:
                each(event)

        return watch

    def table_closed(self, game_id: str) -> None:
        for watcher in self._watchers:
            watcher.table_closed(game_id)


class Tables(Protocol):
    """Plays one game to its end and hands back its record; `TablesGoneError` if it cannot."""

    async def play(self, spec: GameSpec, watch: Watch | None) -> GameRecord: ...


class Hosts(Tables, Protocol):
    """Tables on other machines that build and start the bots themselves (a cluster).

    `open` readies them for a tournament and says which bots can play there;
    `slots` is how many games they play at once; `close` stops them all.
    """

    async def open(self, info: TournamentInfo, seed: bytes) -> list[str]: ...

    def slots(self) -> int: ...

    async def close(self) -> None: ...

    def resume_flags(self) -> str:
        """The flags that bring a resume back to these tables (`--cluster ...`)."""


class LobbyTables:
    """Games on the sessions of one referee's lobby, every seat borrowed at once."""

    def __init__(
        self,
        lobby: Lobby,
        seed: bytes,
        clock: TimeControl,
    ) -> None:
        self.lobby = lobby
        self.seed = seed
        self.clock = clock

    async def play(self, spec: GameSpec, watch: Watch | None) -> GameRecord:
        borrowed = await self.lobby.borrow_table(spec.players)
        lobby = self.lobby
        seats: list[Seat] = [  # in seat order: borrowed keeps the order it was given
            s if s is not None else AbsentSeat(n, f"{n} has no session open ({lobby.absence(n)})")
            for n, s in borrowed.items()
        ]
        try:
            match = Match(spec, seats, self.seed, self.clock, watch)
            return await match.play()
        finally:
            for session in borrowed.values():
                if session is not None:
                    await self.lobby.give_back(session)
