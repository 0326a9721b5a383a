"""Authors' requests for test games, as the league store keeps them: one row per request.

A request is kept from the moment it is taken (`queued`), so an author's daily quota
counts what the store holds and a restart forgives nothing; it becomes `playing`, then
`played` with its games or `failed` with why. A request a killed server left queued or
playing is marked `interrupted` when the next one starts, and costs its author nothing.

The games themselves are not here, nor in the league's games: they are unranked, and a
game in the league's record is one every rating reads (`arena.league.request_games`).
"""

from __future__ import annotations

import abc
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.store.rows import Row, Statement

REQUEST_TABLES = (
    "CREATE TABLE IF NOT EXISTS game_requests ("
    " uid TEXT PRIMARY KEY, name TEXT NOT NULL, seats TEXT NOT NULL, games INTEGER NOT NULL,"
    " requested DOUBLE PRECISION NOT NULL, state TEXT NOT NULL,"
    " finished DOUBLE PRECISION, reason TEXT NOT NULL DEFAULT '',"
    " played TEXT NOT NULL DEFAULT '[]')",
    "CREATE INDEX IF NOT EXISTS game_requests_by_name ON game_requests (name, requested)",
)
"""The schema's step that adds requests (see `arena.store.league_store.SCHEMA`)."""

_COLUMNS = "uid, name, seats, games, requested, state, finished, reason, played"


class RequestState(StrEnum):
    QUEUED = "queued"
    PLAYING = "playing"
    PLAYED = "played"
    FAILED = "failed"
    """It could not be played; `reason` says why. It counts against the quota."""
    INTERRUPTED = "interrupted"
    """The server stopped before it was played: it does not count against the quota."""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One game of a request, as its author is shown it."""

    game: str
    ranking: tuple[str, ...]
    """The entrants by place, first first."""
    replay: str
    """Its replay, relative to the server's results folder."""

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "ranking": list(self.ranking), "replay": self.replay}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PlayedGame:
        return cls(str(data["game"]), tuple(map(str, data["ranking"])), str(data["replay"]))


@dataclass(frozen=True, slots=True)
class RequestRow:
    uid: str
    name: str
    """The author who asked."""
    seats: tuple[tuple[str, int], ...]
    """The table, each entrant with its version: the author first."""
    games: int
    requested: float
    state: RequestState
    finished: float | None = None
    reason: str = ""
    played: tuple[PlayedGame, ...] = ()

    @property
    def counts(self) -> bool:
        """Whether it counts against its author's quota."""
        return self.state is not RequestState.INTERRUPTED

    @classmethod
    def of(cls, row: Row) -> RequestRow:
        uid, name, seats, games, requested, state, finished, reason, played = row
        return cls(
            str(uid),
            str(name),
            tuple((str(n), int(v)) for n, v in json.loads(seats)),
            int(games),
            float(requested),
            RequestState(state),
            None if finished is None else float(finished),
            str(reason),
            tuple(PlayedGame.from_json(g) for g in json.loads(played)),
        )


class RequestRecords(abc.ABC):
    """The store's requests for test games; mixed into `LeagueStore`, whose queries run them."""

    @abc.abstractmethod
    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abc.abstractmethod
    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]: ...

    def add_request(
        self, name: str, seats: Sequence[tuple[str, int]], games: int, requested: float
    ) -> RequestRow:
        """Keep a new request, queued, under the next number: one server writes them."""
        rows = self._read("numbering a request", "SELECT COUNT(*) FROM game_requests")
        uid = f"request-{int(rows[0][0]) + 1:06d}"
        self._write(
            "recording a request",
            [
                (
                    f"INSERT INTO game_requests ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        uid,
                        name,
                        json.dumps([list(s) for s in seats]),
                        games,
                        requested,
                        RequestState.QUEUED.value,
                        None,
                        "",
                        "[]",
                    ),
                )
            ],
        )
        return RequestRow(uid, name, tuple(seats), games, requested, RequestState.QUEUED)

    def set_request(
        self,
        uid: str,
        state: RequestState,
        reason: str = "",
        played: Sequence[PlayedGame] = (),
    ) -> None:
        """Move a request on: to playing, or to its end with its games or why not."""
        ended = state not in (RequestState.QUEUED, RequestState.PLAYING)
        self._write(
            "recording a request's progress",
            [
                (
                    "UPDATE game_requests SET state = ?, finished = ?, reason = ?, played = ? "
                    "WHERE uid = ?",
                    (
                        state.value,
                        time.time() if ended else None,
                        reason,
                        json.dumps([g.to_json() for g in played]),
                        uid,
                    ),
                )
            ],
        )

    def request(self, uid: str) -> RequestRow | None:
        rows = self._read(
            "reading a request", f"SELECT {_COLUMNS} FROM game_requests WHERE uid = ?", (uid,)
        )
        return RequestRow.of(rows[0]) if rows else None

    def requests(self, name: str | None = None) -> list[RequestRow]:
        """Every request, or one author's, newest first."""
        where, params = ("WHERE name = ? ", (name,)) if name is not None else ("", ())
        rows = self._read(
            "reading requests",
            f"SELECT {_COLUMNS} FROM game_requests {where}ORDER BY requested DESC, uid DESC",
            params,
        )
        return [RequestRow.of(row) for row in rows]

    def interrupt_requests(self) -> list[RequestRow]:
        """Mark the requests a killed server left queued or playing as interrupted."""
        left = [
            r for r in self.requests() if r.state in (RequestState.QUEUED, RequestState.PLAYING)
        ]
        for row in left:
            self.set_request(
                row.uid,
                RequestState.INTERRUPTED,
                "the server stopped before it was played; ask again (it cost no quota)",
            )
        return left
