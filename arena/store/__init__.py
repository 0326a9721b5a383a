"""The league store: every game of every tournament, in SQLite or in PostgreSQL.

It sits below the tournament, not inside the league, because the tournament
writes each game into it the moment the game is on disk (the crash-safe
order: games.jsonl first, then the store); the league server, the
leaderboard and the rebuild read and write it too. It knows the game line and
nothing of the referee, so importing it loads no gRPC.
"""

from arena.store.address import is_url, open_store, recorded, shown
from arena.store.identity import identity_of
from arena.store.league_store import (
    LeagueConflictError,
    LeagueStore,
    Mark,
    StoredTournament,
    StoreError,
    rebuild_hint,
    taken_name_way_out,
)
from arena.store.sqlite import SqliteStore

__all__ = [
    "LeagueConflictError",
    "LeagueStore",
    "Mark",
    "SqliteStore",
    "StoreError",
    "StoredTournament",
    "identity_of",
    "is_url",
    "open_store",
    "rebuild_hint",
    "recorded",
    "shown",
    "taken_name_way_out",
]
