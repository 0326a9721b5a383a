"""The league store: every game of every tournament, in SQLite or in PostgreSQL.

It sits below the tournament, not inside the league, because the tournament
writes each game into it the moment the game is on disk (the crash-safe
order: games.jsonl first, then the store); the league server, the
leaderboard and the rebuild read and write it too. It knows the game line and
nothing of the referee, so importing it loads no gRPC.
"""

from arena.store.address import is_url, open_store, recorded, shown
from arena.store.league_store import LeagueStore, StoreError, rebuild_hint
from arena.store.sqlite import SqliteStore

__all__ = [
    "LeagueStore",
    "SqliteStore",
    "StoreError",
    "is_url",
    "open_store",
    "rebuild_hint",
    "recorded",
    "shown",
]
