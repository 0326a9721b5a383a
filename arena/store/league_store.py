"""The league store's face: every game of every tournament, in SQLite or in PostgreSQL.

One transaction per game, keyed by a unique game id, so writing a game twice
(a resumed run, say, or a retried write) changes nothing; another record under
that id is refused, naming both, never kept or dropped in silence. A
tournament is kept with its run's identity (`arena.store.identity`), so a name
given again to another run is refused rather than taken for a resume. League ratings are
not stored but rated afresh from the games in order, which keeps them exact
and lets the rating model change without a migration. Entrants registered
for remote play keep their token hashes here too.

SQLite (a file) is the embedded default; a `postgresql://` URL puts the league
on a database server that several coordinators share (two league nights at
once). Both keep one schema under a version number (`schema_version`) and run
the same queries, so the store's face is the same whichever holds it.

Every game is also in its tournament's games.jsonl (the commit point), so a
damaged store is not a loss: it is refused at open with a way out (`arena
league rebuild`), never read as an empty league. Its errors (a full disk, a
damaged page, a server that cannot be reached) arrive as `StoreError`, which
says which store and what to do.
"""

from __future__ import annotations

import abc
import base64
import json
import secrets
import time
import zlib
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from arena.errors import ArenaError
from arena.records import GameLine
from arena.store.causes import Cause
from arena.store.identity import described, identity_of, line_difference, same_record
from arena.store.requests import REQUEST_TABLES, RequestRecords
from arena.store.rows import Row, Statement
from arena.store.submissions import SUBMISSION_TABLES, SubmissionRecords


class StoreError(ArenaError):
    """The league store cannot be used as it is; the message says why and what to do, and
    `cause` which kind of fault it is (a run waits out one that passes by itself)."""

    def __init__(self, message: str, cause: Cause = Cause.OTHER) -> None:
        super().__init__(message)
        self.cause = cause


class LeagueConflictError(StoreError):
    """The league holds, under a name or a game's id, another run's or another record."""


class Mark(NamedTuple):
    """A tournament's place in the store's order (`tournaments`): its start, then its id."""

    started: float
    id: str


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A tournament as the league holds it."""

    id: str
    run_id: str
    """Its identity (`arena.store.identity`): which run of that name it is."""
    info: dict[str, Any]
    """Its tournament.json as it was when play began."""
    games: int


def taken_name_way_out(tournament_id: str, where: str) -> str:
    """What to do when the league holds a name from another run."""
    return (
        f"take that one out with `arena league remove {tournament_id} --league {where}` "
        f"(its folder, if any, is left as it is), or run under another --name"
    )


def rebuild_hint(where: str | Path) -> str:
    return (
        f"`arena league rebuild --league {where}` recreates it from the results folders "
        f"(every game is in its tournament's games.jsonl)"
    )


def store_advice(cause: Cause, where: str | Path) -> str:
    """What to do about a store that failed for `cause`: a rebuild only for a damaged one,
    since the others lose nothing and a rebuild would not help them."""
    match cause:
        case Cause.LOCKED:
            return (
                "another process holds its lock (a second arena, an `arena league rebuild`, or "
                "a tool with it open): let it finish, then try again"
            )
        case Cause.READ_ONLY:
            return (
                "its filesystem is mounted read-only: remount it read-write, or give --league "
                "a store on a writable disk"
            )
        case Cause.PERMISSION:
            return (
                "this user may not write it or its folder (SQLite writes a journal beside it): "
                "give the rights back (chown or chmod), or run as its owner"
            )
        case Cause.MISSING:
            return "its folder is gone: make it again, or give --league a store that exists"
        case Cause.FULL:
            return "free some space (or raise the limit) and try again"
        case Cause.DAMAGED:
            return f"it is damaged; {rebuild_hint(where)}"
        case Cause.UNREACHABLE:
            return "is the server running and reachable at that host and port? Then try again"
        case _:
            return "if it stays so, see the system's log"


PACKED = "z:"
"""The mark of a tournament's info kept compressed: JSON never begins so."""


def pack_info(info: dict[str, Any]) -> str:
    """A tournament's info as the store keeps it: JSON, compressed (zlib, base64) behind
    `PACKED` when that is shorter, as a ladder round's always is."""
    text = json.dumps(info, separators=(",", ":"))
    packed = PACKED + base64.b64encode(zlib.compress(text.encode(), 9)).decode()
    return packed if len(packed) < len(text) else text


def unpack_info(text: str) -> dict[str, Any]:
    """A tournament's info as `pack_info` kept it (or as a store before schema 6 did)."""
    if text.startswith(PACKED):
        text = zlib.decompress(base64.b64decode(text[len(PACKED) :])).decode()
    info: dict[str, Any] = json.loads(text)
    return info


class LeagueStore(SubmissionRecords, RequestRecords, abc.ABC):
    """What the runner, the league server and the leaderboard see of a store.

    The queries are written once, in the SQL both databases speak (`?` for a
    parameter); each kind of store says only how to run them, in one
    transaction for a write, and what its errors mean.
    """

    where: str
    """The store as the organiser named it, for messages (no password)."""

    @abc.abstractmethod
    def close(self) -> None: ...

    @abc.abstractmethod
    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """The rows of one query, its errors a StoreError saying what it was `doing`."""

    @abc.abstractmethod
    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]:
        """Run the statements in one transaction; the rows each changed."""

    def check_pages(self) -> None:
        """Read every page of the store and refuse it (a StoreError) if one is damaged, as
        an SQLite store does at open unless told not to. A database server keeps its own
        pages sound: nothing to read."""

    def add_tournament(
        self, tournament_id: str, info: dict[str, Any], started: float | None = None
    ) -> None:
        """Record a tournament under its name, once; a LeagueConflictError if the league holds
        that name from another run (see `arena.store.identity`)."""
        when = time.time() if started is None else started
        run_id = identity_of(info)
        self._write(
            "adding a tournament",
            [
                (
                    "INSERT INTO tournaments (id, started, info, run_id) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (id) DO NOTHING",
                    (tournament_id, when, pack_info(info), run_id),
                )
            ],
        )
        held = self.tournament(tournament_id)
        if held is not None and held.run_id != run_id:
            raise LeagueConflictError(
                f"the league store {self.where} holds another run under the name "
                f"{tournament_id!r} ({described(held.info)}, {held.games} games), not this "
                f"one ({described(info)}); {taken_name_way_out(tournament_id, self.where)}"
            )

    def add_game(self, tournament_id: str, line: GameLine) -> bool:
        """Record one game; False when the same record was already there. Another record
        under its id is a LeagueConflictError naming both: keeping either in silence would
        make the league say what its folder does not."""
        uid = f"{tournament_id}/{line.game}"
        (added,) = self._write(
            "recording a game",
            [
                (
                    "INSERT INTO games (uid, tournament, idx, line) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (uid) DO NOTHING",
                    (uid, tournament_id, line.index, json.dumps(line.to_json())),
                )
            ],
        )
        if added == 1:
            return True
        rows = self._read("reading a game", "SELECT line FROM games WHERE uid = ?", (uid,))
        stored = GameLine.from_json(json.loads(rows[0][0])) if rows else None
        if stored is not None and not same_record(stored, line):
            raise LeagueConflictError(
                f"the league store {self.where} holds game {line.game} of {tournament_id} with "
                f"another record than the one offered (stored vs offered: "
                f"{line_difference(stored, line)}); `arena league check --league {self.where}` "
                f"lists every difference"
            )
        return False

    def tournament(self, tournament_id: str) -> StoredTournament | None:
        """What the league holds under a tournament's name, if anything."""
        rows = self._read(
            "reading a tournament",
            "SELECT t.run_id, t.info, COUNT(g.uid) FROM tournaments t "
            "LEFT JOIN games g ON g.tournament = t.id WHERE t.id = ? GROUP BY t.id",
            (tournament_id,),
        )
        if not rows:
            return None
        run_id, info, games = rows[0]
        return StoredTournament(tournament_id, str(run_id), unpack_info(info), int(games))

    def games_of(self, tournament_id: str) -> dict[str, GameLine]:
        """One tournament's games, by game id."""
        rows = self._read(
            "reading games",
            "SELECT line FROM games WHERE tournament = ? ORDER BY idx",
            (tournament_id,),
        )
        lines = (GameLine.from_json(json.loads(line)) for (line,) in rows)
        return {line.game: line for line in lines}

    def remove_tournament(self, tournament_id: str) -> int | None:
        """Take a tournament and its games out; the number of games, or None if it was not in."""
        games, found = self._write(
            "removing a tournament",
            [
                ("DELETE FROM games WHERE tournament = ?", (tournament_id,)),
                ("DELETE FROM tournaments WHERE id = ?", (tournament_id,)),
            ],
        )
        return games if found else None

    def lines(self, tournament_ids: Collection[str] | None = None) -> list[tuple[str, GameLine]]:
        """(tournament, game line) of every game, or of these tournaments', in `results` order:
        the batch fit needs each game's id and deal to know its rotation group."""
        rows = self._read(
            "reading games",
            "SELECT g.tournament, g.line FROM games g "
            "JOIN tournaments t ON t.id = g.tournament ORDER BY t.started, t.id, g.idx",
        )
        return [
            (tid, GameLine.from_json(json.loads(line)))
            for tid, line in rows
            if tournament_ids is None or tid in tournament_ids
        ]

    def tournament_infos(self) -> list[tuple[str, dict[str, Any]]]:
        """Each tournament's id and the info it was added with, oldest first."""
        rows = self._read(
            "reading tournaments", "SELECT id, info FROM tournaments ORDER BY started, id"
        )
        return [(tid, unpack_info(info)) for tid, info in rows]

    def tournaments(self) -> list[tuple[str, int]]:
        rows = self._read(
            "reading tournaments",
            "SELECT t.id, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id) "
            "FROM tournaments t ORDER BY t.started, t.id",
        )
        return [(tid, count) for tid, count in rows]

    def tournaments_after(
        self, mark: Mark | None, limit: int | None = None
    ) -> list[tuple[Mark, int]]:
        """The tournaments after `mark` (all with None), in `tournaments` order, each by its
        place in that order (start, id) with its games, the first `limit` of them if given:
        what a look that keeps what it read before asks for, by index, rather than the
        whole list."""
        after = "" if mark is None else "WHERE (t.started, t.id) > (?, ?) "
        most = "" if limit is None else f"LIMIT {int(limit)}"
        rows = self._read(
            "reading tournaments",
            "SELECT t.started, t.id, (SELECT COUNT(*) FROM games g WHERE g.tournament = t.id) "
            f"FROM tournaments t {after}ORDER BY t.started, t.id {most}",
            () if mark is None else mark,
        )
        return [(Mark(float(started), str(tid)), int(games)) for started, tid, games in rows]

    def marks_of(self, tournament_ids: Collection[str]) -> dict[str, Mark]:
        """Where each of these tournaments is in `tournaments` order, of those the league
        holds: by index."""
        ids = sorted(set(tournament_ids))
        if not ids:
            return {}
        rows = self._read(
            "reading tournaments",
            f"SELECT started, id FROM tournaments WHERE id IN ({', '.join('?' * len(ids))})",
            ids,
        )
        return {str(tid): Mark(float(started), str(tid)) for started, tid in rows}

    def tournaments_through(self, mark: Mark) -> tuple[int, int | None]:
        """How many tournaments are at or before `mark` in `tournaments` order, and the games
        of the one at `mark` (None if it is not there under that start): a cheap check that
        what was read up to it is all still there as it was."""
        rows = self._read(
            "reading tournaments",
            "SELECT (SELECT COUNT(*) FROM tournaments WHERE (started, id) <= (?, ?)), "
            "(SELECT COUNT(*) FROM tournaments WHERE id = ? AND started = ?), "
            "(SELECT COUNT(*) FROM games WHERE tournament = ?)",
            (*mark, mark.id, mark.started, mark.id),
        )
        count, found, games = rows[0]
        return int(count), int(games) if found else None

    # Entrants of a league server (remote bots).

    def set_entrant(self, name: str, token_hash: str) -> None:
        self._write(
            "registering an entrant",
            [
                (
                    "INSERT INTO entrants (name, token_hash, created, revoked) "
                    "VALUES (?, ?, ?, 0) ON CONFLICT (name) "
                    "DO UPDATE SET token_hash = excluded.token_hash, revoked = 0",
                    (name, token_hash, time.time()),
                )
            ],
        )

    def revoke_entrant(self, name: str) -> bool:
        (revoked,) = self._write(
            "revoking an entrant",
            [("UPDATE entrants SET revoked = 1 WHERE name = ?", (name,))],
        )
        return revoked == 1

    def entrants(self) -> dict[str, str]:
        """Names with active tokens, and their hashes."""
        rows = self._read(
            "reading entrants", "SELECT name, token_hash FROM entrants WHERE revoked = 0"
        )
        return {str(name): str(token) for name, token in rows}

    # What changed since a check last agreed (`arena.tournament.results.upkeep.check`).

    def generation(self) -> tuple[str, int]:
        """The store's epoch (its own, made with it) and its generation: how many writes of
        a tournament or a game it has committed."""
        rows = self._read("reading its generation", "SELECT epoch, n FROM generation")
        return (str(rows[0][0]), int(rows[0][1])) if rows else ("", 0)

    def changed_since(self, generation: int) -> list[str]:
        """The tournaments whose row or games were written (added, changed, taken out)
        after `generation`: found by index, so as many as changed, not the whole league."""
        rows = self._read(
            "reading what changed",
            "SELECT tournament FROM changes WHERE gen > ? ORDER BY gen",
            (generation,),
        )
        return [str(tid) for (tid,) in rows]

    def counts(self) -> tuple[int, int]:
        """How many tournaments and games the league holds."""
        rows = self._read(
            "counting games",
            "SELECT (SELECT COUNT(*) FROM tournaments), (SELECT COUNT(*) FROM games)",
        )
        return int(rows[0][0]), int(rows[0][1])


SCHEMA: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE IF NOT EXISTS tournaments ("
        " id TEXT PRIMARY KEY, started DOUBLE PRECISION NOT NULL, info TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS games ("
        " uid TEXT PRIMARY KEY, tournament TEXT NOT NULL REFERENCES tournaments(id),"
        " idx INTEGER NOT NULL, line TEXT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS entrants ("
        " name TEXT PRIMARY KEY, token_hash TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,"
        " revoked INTEGER NOT NULL DEFAULT 0)",
    ),
    # 2: each tournament's identity, so that a name given again to another run is told
    # apart from a resume (`arena.store.identity`); a store's rows from before are given
    # theirs from the info they were added with (`identity_updates`).
    ("ALTER TABLE tournaments ADD COLUMN run_id TEXT",),
    # 3: the bots entrants submit, each kept once by the hash of its files, with its build
    # log, check report and verdict, and the version each entrant chose to play
    # (`arena.store.submissions`).
    SUBMISSION_TABLES,
    # 4: a tournament's games, and the tournaments in order, found by index rather than by
    # reading every row: a ladder asks for them at every table it chooses, all day, as its
    # record grows (at 30,000 games a round's games took 3 ms, the list 25 ms; now 0 and 9).
    (
        "CREATE INDEX IF NOT EXISTS games_by_tournament ON games (tournament, idx)",
        "CREATE INDEX IF NOT EXISTS tournaments_by_start ON tournaments (started, id)",
    ),
    # 5: authors' requests for unranked test games, kept for their daily quota and their
    # outcome (`arena.store.requests`).
    REQUEST_TABLES,
    # 6: a tournament's info kept compressed (`pack_info`): a ladder round's is 2.3 KB of
    # JSON, a third of what its three games take. Nothing to change in the rows before; the
    # version says that an older arena, which reads the info as JSON alone, must not open it.
    ("UPDATE tournaments SET info = info WHERE 0 = 1",),
    # 7: the store's generation, and the one at which each tournament (its row or any of
    # its games) last changed, kept by triggers so that a change made by any client is
    # counted: `arena league check` then compares only what changed since it last agreed
    # (`changed_since`). Each dialect writes its triggers in its own words (`TRIGGERS`).
    (
        "CREATE TABLE IF NOT EXISTS generation (epoch TEXT NOT NULL, n BIGINT NOT NULL)",
        "INSERT INTO generation (epoch, n) SELECT '{epoch}', 0 "
        "WHERE NOT EXISTS (SELECT 1 FROM generation)",
        "CREATE TABLE IF NOT EXISTS changes (tournament TEXT PRIMARY KEY, gen BIGINT NOT NULL)",
        "CREATE INDEX IF NOT EXISTS changes_by_gen ON changes (gen)",
        "{triggers}",
    ),
)
"""The statements that bring a store from each version to the next: SCHEMA[0] makes
version 1 (the tables a store had before it kept a version, so such a store is
taken in as it is). A change to the schema is a new entry, never an edit."""


def _sqlite_trigger(name: str, when: str, table: str, keys: tuple[str, ...]) -> str:
    counted = "".join(
        "INSERT INTO changes (tournament, gen) SELECT "
        f"{key}, n FROM generation WHERE true "
        "ON CONFLICT (tournament) DO UPDATE SET gen = excluded.gen; "
        for key in keys
    )
    return (
        f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {when} ON {table} BEGIN "
        f"UPDATE generation SET n = n + 1; {counted}END"
    )


TRIGGERS: dict[str, tuple[str, ...]] = {
    "sqlite": tuple(
        _sqlite_trigger(f"{table}_{when.lower()}", when, table, keys)
        for table, column in (("games", "tournament"), ("tournaments", "id"))
        for when, keys in (
            ("INSERT", (f"NEW.{column}",)),
            ("UPDATE", (f"OLD.{column}", f"NEW.{column}")),
            ("DELETE", (f"OLD.{column}",)),
        )
    ),
    "postgres": (
        "CREATE OR REPLACE FUNCTION arena_changed() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "DECLARE g BIGINT; key TEXT; "
        "BEGIN "
        "UPDATE generation SET n = n + 1 RETURNING n INTO g; "
        "FOR key IN SELECT DISTINCT k FROM (VALUES "
        "(CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) ->> TG_ARGV[0] END), "
        "(CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) ->> TG_ARGV[0] END)) AS v(k) "
        "WHERE k IS NOT NULL LOOP "
        "INSERT INTO changes (tournament, gen) VALUES (key, g) "
        "ON CONFLICT (tournament) DO UPDATE SET gen = excluded.gen; "
        "END LOOP; RETURN NULL; END $$",
        "CREATE TRIGGER games_changed AFTER INSERT OR UPDATE OR DELETE ON games "
        "FOR EACH ROW EXECUTE FUNCTION arena_changed('tournament')",
        "CREATE TRIGGER tournaments_changed AFTER INSERT OR UPDATE OR DELETE ON tournaments "
        "FOR EACH ROW EXECUTE FUNCTION arena_changed('id')",
    ),
}
"""Schema 7's triggers: every row of games or tournaments written, by the arena or by any
other client, moves the generation on and marks its tournament changed at it. A write
holds the generation's row to its commit, so generations are committed in order and a
check that read generation G has seen every change at G or before."""

SCHEMA_VERSION = len(SCHEMA)
"""The schema this arena reads and writes; a store at an older one is migrated at open."""


def migration(version: int, where: str, dialect: str = "sqlite") -> list[str]:
    """The statements from `version` (0: a new store) to SCHEMA_VERSION in `dialect`
    ("sqlite" or "postgres"); refuse a newer one. A new store's generation is given an
    epoch of its own, so a check's memory of another store (a rebuilt one) is never taken
    for this one's."""
    if version > SCHEMA_VERSION:
        raise StoreError(
            f"the league store {where} is at schema version {version}, made by a newer arena "
            f"than this one (version {SCHEMA_VERSION}); upgrade the arena to use it"
        )
    epoch = secrets.token_hex(8)
    steps = [
        made
        for step in SCHEMA[version:]
        for sql in step
        for made in (TRIGGERS[dialect] if sql == "{triggers}" else (sql.replace("{epoch}", epoch),))
    ]
    if not steps:
        return []
    mark = (
        f"INSERT INTO schema_version (version) VALUES ({SCHEMA_VERSION})"
        if version == 0
        else f"UPDATE schema_version SET version = {SCHEMA_VERSION}"
    )
    return [*steps, mark]


UNIDENTIFIED = "SELECT id, info FROM tournaments WHERE run_id IS NULL"
"""The tournaments kept before the store recorded identities (`identity_updates`)."""


def identity_updates(rows: Sequence[Row]) -> list[Statement]:
    """For the (id, info) of tournaments kept before the store recorded identities: the
    statements that record each one's, from its info, as its folder's tournament.json has it."""
    return [
        ("UPDATE tournaments SET run_id = ? WHERE id = ?", (identity_of(unpack_info(info)), tid))
        for tid, info in rows
    ]
