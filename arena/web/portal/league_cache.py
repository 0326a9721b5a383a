"""The league's games as the pages read them, kept between requests and brought up to date
by what changed, so that a page costs little however long the season.

Reading every game of a season from the store and rating them all again
took, at 10,000 games, 0.75 s for the reading, 6.7 s for the rating curve
and 7 s for the board's bootstrap: on every change, which with a ladder
playing is every page. So the games are kept by tournament and only a
tournament whose count of games changed is read again (`LeagueLines`), an
entrant's games are labelled and tallied again for that tournament alone
(`Seasons`), and the board and the rating curves, which cannot be made from
the games added alone, are made again in a process of their own while the
last ones made are shown (`Boards`): a board is as of its games.
"""

from __future__ import annotations

import asyncio
import functools
import multiprocessing
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from arena.records import GameLine
from arena.store import LeagueStore
from arena.tournament.report.ratings import Ratings, result_of
from arena.tournament.report.standings import Board, board
from arena.web.portal.author_games import (
    AuthorGame,
    HeadToHead,
    Tally,
    author_games,
    pinned_versions,
    table,
    tally,
)

PROCESS_FROM = 2_000
"""Games from which the board is made in a process of its own: below it, it takes well
under a second, less than starting the process would."""
Lines = list[tuple[str, GameLine]]
Key = tuple[int, str]


def key_of(lines: Sequence[tuple[str, GameLine]]) -> Key:
    """What changes when a game is added: the count and the last game's uid."""
    return (len(lines), f"{lines[-1][0]}/{lines[-1][1].game}" if lines else "")


class LeagueLines:
    """Every game on record in `results` order, re-read by the tournament that changed."""

    def __init__(self) -> None:
        self.listed: list[tuple[str, int]] = []
        """Each tournament's id and count of games, in the store's order."""
        self.games: dict[str, Lines] = {}
        """Each tournament's games, in its order."""
        self._lines: Lines = []

    def read(self, store: LeagueStore) -> Lines:
        """The store's games now; the same list object while nothing changed."""
        listed = store.tournaments()  # ids and counts, in the store's order: one cheap query
        if listed == self.listed:
            return self._lines
        held = dict(self.listed)
        games = {
            tid: self.games[tid]
            if held.get(tid) == count
            else [(tid, line) for line in store.games_of(tid).values()]
            for tid, count in listed
        }
        self.listed, self.games = listed, games
        self._lines = [entry for tid, _ in listed for entry in games[tid]]
        return self._lines


@dataclass(frozen=True, slots=True)
class Standings:
    """The league's board, and each entrant's conservative TrueSkill rating after each of
    its games in the order the league rates them (so each curve ends on its board's row)."""

    board: Board
    paths: dict[str, list[float]]


def standings_of(lines: Lines) -> Standings:
    ratings = Ratings()
    paths: dict[str, list[float]] = {}
    for _, line in lines:
        ratings.add(result_of(line))
        for player in line.players:
            standing = ratings.standings.get(player)
            if standing is not None:
                paths.setdefault(player, []).append(standing.conservative)
    return Standings(board(lines), paths)


class Boards:
    """The league's standings, made away from the event loop; while newer ones are being
    made, the last ones made are what the pages show (none are waited for but the first):
    neither the bootstrap nor the rating curves can be made by the games added alone (a
    night's game is rated before the ladder rounds that began after the night did).

    A large league's is made in a process of its own: made in a thread, its seconds of
    rating held the interpreter's lock against the event loop, and a page that took 20 ms
    took 2 to 5 s while a board was being made."""

    def __init__(self) -> None:
        self._board: tuple[Key, Standings] | None = None
        self._making: asyncio.Future[Standings] | None = None
        self._pool: ProcessPoolExecutor | None = None

    async def of(self, lines: Lines) -> Standings:
        key = key_of(lines)
        if self._board is not None and self._board[0] == key:
            return self._board[1]
        if self._making is None:  # one at a time: a later one starts on a later look
            making = self._make(lines)
            making.add_done_callback(functools.partial(self._made, key))
            self._making = making
        if self._board is None:
            return await asyncio.shield(self._making)
        return self._board[1]

    def _make(self, lines: Lines) -> asyncio.Future[Standings]:
        if len(lines) < PROCESS_FROM:
            return asyncio.ensure_future(asyncio.to_thread(standings_of, lines))
        if self._pool is None:  # spawned, never forked: the server runs grpc
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return asyncio.get_running_loop().run_in_executor(self._pool, standings_of, lines)

    def close(self) -> None:
        """Its process let go: it ends once the board it is making, if any, is made."""
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def _made(self, key: Key, made: asyncio.Future[Standings]) -> None:
        self._making = None
        if not made.cancelled() and made.exception() is None:
            self._board = (key, made.result())


@dataclass(frozen=True, slots=True)
class Season:
    """An entrant's games (newest first), its head-to-head rows and its rating curve."""

    games: list[AuthorGame]
    opponents: list[HeadToHead]


class Seasons:
    """Each entrant's season as its page shows it, made again by the tournament that changed:
    its games labelled with their versions (each tournament's pins read once) and tallied
    against each opponent, and its curve from the league's `RatingPaths`."""

    def __init__(self) -> None:
        self._pins: dict[str, dict[str, int]] = {}
        self._parts: dict[str, dict[str, tuple[int, list[AuthorGame], Tally]]] = {}
        """By entrant and tournament: the tournament's count of games when its part was
        made, its games of the entrant (newest first) and their tally."""
        self._kept: dict[str, tuple[Key, Season]] = {}

    def of(self, store: LeagueStore, league: LeagueLines, name: str) -> Season:
        """`league`: read just now (`LeagueLines.read`)."""
        lines = league.read(store)
        key = key_of(lines)
        kept = self._kept.get(name)
        if kept is not None and kept[0] == key:
            return kept[1]
        if not league.games.keys() <= self._pins.keys():
            self._pins = pinned_versions(store.tournament_infos())
        parts = self._parts.setdefault(name, {})
        for tid, count in league.listed:
            if tid not in parts or parts[tid][0] != count:
                games = author_games(league.games[tid], self._pins, name)
                parts[tid] = (count, games, tally(name, games))
        for gone in parts.keys() - league.games.keys():
            del parts[gone]
        mine = [parts[tid] for tid, _ in reversed(league.listed)]
        games = [game for _, part, _ in mine for game in part]
        season = Season(games, table([counted for *_, counted in mine]))
        self._kept[name] = (key, season)
        return season
