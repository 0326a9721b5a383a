"""How the ladder stands, as `arena admin ladder status` and the league's web pages show it:
one typed record (`LadderStatus`), and the admin reply made from it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.league.ladder.board import LadderGame
from arena.league.ladder.sideline import SittingOut
from arena.matchmaking import tables_of
from arena.protocol.messages import admin as apb
from arena.records import LeaderboardRow


@dataclass(frozen=True, slots=True)
class LadderTable:
    """A table in play: its round, and its entrants by seat."""

    round: str
    seats: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LadderStatus:
    running: bool
    paused: bool
    table_sizes: tuple[int, ...]
    tables: tuple[LadderTable, ...]
    """The tables in play, by round."""
    standings: tuple[LeaderboardRow, ...]
    """Its board over every ladder game on record, best first: each entrant's version that
    plays now once it has played, else its last one rated."""
    versions: Mapping[str, int | None]
    """The version each row of the board is, by entrant (None: dialled in)."""
    latest: tuple[LadderGame, ...]
    """Its last games on record, oldest first."""
    sitting_out: tuple[SittingOut, ...]
    error: str | None
    """The fault that holds the ladder now, with how many tries it failed, or why the ladder
    stopped by itself (`stopped: ...`, with the way out); None while all is well."""

    @property
    def tables_said(self) -> str:
        """Its sizes as a sentence says them: `tables of 2 or 3`."""
        return tables_of(self.table_sizes)

    @property
    def shown(self) -> bool:
        """Whether there is a ladder to show: playing, held for a night, or on record."""
        return self.running or self.paused or bool(self.standings) or self.error is not None

    def reply(self) -> apb.LadderResponse:
        """As the admin service sends it."""
        reply = apb.LadderResponse(
            running=self.running,
            paused=self.paused,
            error=self.error or "",
            table_sizes=list(self.table_sizes),
        )
        for table in self.tables:
            reply.tables.add(round=table.round, seats=list(table.seats))
        for row in self.standings:
            version = self.versions.get(row.bot) or 0
            reply.standings.add(
                name=row.bot, mu=row.mu, sigma=row.sigma, games=row.games, version=version
            )
        for game in self.latest:
            reply.latest.add(round=game.round, game_id=game.game_id, ranking=list(game.ranking))
        for out in self.sitting_out:
            reply.sitting_out.add(name=out.name, seconds=out.seconds, why=out.why)
        return reply
