"""The ladder as the league's pages show it: its board, the round in play, its latest games,
and an entrant's ladder history.

What the pages read of the league server's ladder is said as protocols in
`arena.web.ladder_source`. Its status reads the league store, so the live page looks at it
again only when the ladder says it has changed (`LadderFeed`), on the web server's tick.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.records import Json, LeaderboardRow
from arena.store import StoreError
from arena.web.ladder_source import LadderSource, LadderStatusView


def state_word(status: LadderStatusView) -> str:
    if status.paused:
        return "paused for a league night"
    if status.running:
        return "running"
    return "stopping: its games in flight finish" if status.tables else "stopped"


def ladder_json(status: LadderStatusView) -> Json:
    """The live page's ladder: names as their bots gave them (the page sets them as text),
    the latest games newest first."""
    return {
        "state": state_word(status),
        "table_sizes": list(status.table_sizes),
        "tables_said": status.tables_said,
        "tables": [{"round": t.round, "seats": list(t.seats)} for t in status.tables],
        "standings": [
            {
                "rank": r.rank,
                "bot": r.bot,
                "rating": r.rating,
                "mu": r.mu,
                "sigma": r.sigma,
                "games": r.games,
            }
            for r in status.standings
        ],
        "latest": [
            {"round": g.round, "game": g.game_id, "ranking": list(g.ranking)}
            for g in reversed(status.latest)
        ],
        "error": status.error,
    }


class LadderFeed:
    """The ladder's status for the live page, read again only when the ladder has changed."""

    def __init__(self, source: LadderSource) -> None:
        self._source = source
        self._seen: int | None = None
        self.json: Json | None = None
        """The page's ladder; None while there is none to show (never started, none on
        record)."""

    def poll(self) -> bool:
        """Whether the ladder changed since the last look (`json` is then the new one). A
        store that cannot be read now leaves the last one shown, and is asked again at the
        next look."""
        changes = self._source.changes
        if changes == self._seen:
            return False
        try:
            status = self._source.status()
        except StoreError:
            return False
        self._seen = changes
        self.json = ladder_json(status) if status.shown else None
        return True


@dataclass(frozen=True, slots=True)
class LadderHistory:
    """An entrant's ladder, for its page: its row of the board, how many ladder games it
    played and its rating after each of them (the games are in the page's one list)."""

    row: LeaderboardRow | None
    games: int
    ratings: Sequence[float]


def history_of(status: LadderStatusView, name: str, path: Sequence[float]) -> LadderHistory:
    """`name`'s ladder history: its rating after each of its ladder games (the ladder's
    `rating_path`: of the version that played, so its last is its row's while that version
    plays), read from the board the ladder keeps, never from every game on record (a
    season's ladder is a million games: reading them all was most of the page's time)."""
    row = next((r for r in status.standings if r.bot == name), None)
    return LadderHistory(row, len(path), path)
