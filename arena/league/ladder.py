"""The ladder on the league server: one small tournament after another, each a table the
matchmaker chose, played and recorded as a league night's games are.

Why rounds of tournaments, not a loop of games of its own: a round is a tournament folder
(`ladder-000042`) with its seed, journal, replays and league-store rows, so everything a
night's run already guarantees holds for the ladder too. A server killed mid-round finds
that round unfinished when it starts again and resumes it: the games on record are not
played again, a game that was in flight is replayed on the same dice (they are keyed by
the round's seed and the game's id), and the next round's number follows the last folder.
Each round's seed is HMAC(secret, number): the secret is kept beside the league store,
so no bot can foretell a round's dice or its table.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.ladder import Draw, Entrant, LadderError, Rating, Rules, Table, choose
from arena.league.ladder_rounds import (
    PREFIX,
    ROUND,
    is_ladder,
    load_secret,
    round_seed,
    secret_path,
)
from arena.league.screen import Kind, Screen, ScreenEvent
from arena.protocol.messages import admin as apb
from arena.submissions.lineups import compose, make_way
from arena.tournament.config import TournamentConfig, TournamentError, Venue
from arena.tournament.info import RunStatus
from arena.tournament.report.ratings import Ratings, Standing, result_of
from arena.tournament.results.resuming import read_info
from arena.tournament.tournament import Observer, Progress, Tournament

if TYPE_CHECKING:
    from arena.league.server import LeagueServer
    from arena.records import GameLine, LeaderboardRow
    from arena.store import LeagueStore

IDLE_S = 1.0
"""How often a ladder with too few entrants looks again."""
LATEST = 20
"""Ladder games in its status, the newest."""


@dataclass(frozen=True, slots=True)
class LadderGame:
    """A ladder game on record, for the status: its round, id and finishing order."""

    round: str
    game_id: str
    ranking: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LadderStatus:
    """How the ladder stands, as `arena admin ladder status` and the web pages show it."""

    running: bool
    paused: bool
    table_size: int
    round: str
    """The round in play ("" when none)..."""
    table: tuple[str, ...]
    """... and its entrants, by seat."""
    standings: tuple[LeaderboardRow, ...]
    """Its TrueSkill board over every ladder game on record, best first."""
    latest: tuple[LadderGame, ...]
    """Its last LATEST games on record, oldest first."""
    error: str | None
    """Why the last round could not be played, if it could not."""

    @property
    def shown(self) -> bool:
        """Whether there is a ladder to show: playing, held for a night, or on record."""
        return self.running or self.paused or bool(self.standings) or self.error is not None


class _Board:
    """The ladder's board, rated as its rounds are recorded.

    Rating every ladder game afresh costs about 0.4 ms a game (two seconds at 5,000), in the
    event loop the referee runs in, at every round and every look at the status. Only the
    last round on record can still gain games (rounds are played one after another, and a
    killed server resumes only its last), so the rounds before it are rated once, in the
    store's order, and the last one on top of them at each look: the same board as rating
    them all, at the cost of one round's games. A round removed from the store, or changed,
    makes it rate everything afresh.
    """

    def __init__(self) -> None:
        self._settled: list[tuple[str, int]] = []
        self._ratings = Ratings()
        self._latest: deque[LadderGame] = deque(maxlen=LATEST)

    def read(self, store: LeagueStore) -> tuple[list[Standing], list[LadderGame]]:
        """The board and the latest games, as the store holds them now."""
        rounds = [(tid, games) for tid, games in store.tournaments() if is_ladder(tid)]
        settled = rounds[:-1]
        if settled[: len(self._settled)] != self._settled:
            self._settled, self._ratings, self._latest = [], Ratings(), deque(maxlen=LATEST)
        # One round at a time, each read whole first: a read that fails leaves none half rated.
        for entry in settled[len(self._settled) :]:
            _rate(store, entry[0], self._ratings, self._latest)
            self._settled.append(entry)
        ratings, latest = _copy(self._ratings), deque(self._latest, maxlen=LATEST)
        for tid, _ in rounds[-1:]:
            _rate(store, tid, ratings, latest)
        return ratings.table(), list(latest)


def _rate(store: LeagueStore, tid: str, ratings: Ratings, latest: deque[LadderGame]) -> None:
    """One round's games, in the order of its schedule."""
    for line in store.games_of(tid).values():
        ratings.add(result_of(line))
        latest.append(LadderGame(tid, line.game, tuple(line.ranking)))


def _copy(ratings: Ratings) -> Ratings:
    copied = Ratings()
    copied.standings = {
        name: dataclasses.replace(s, think=list(s.think)) for name, s in ratings.standings.items()
    }
    return copied


class _Recorder:
    """The rounds' observer: tells the screen each game's end, and the ladder that it moved."""

    def __init__(self, tell: Screen | None, changed: Callable[[], None], round_id: str) -> None:
        self._tell = tell
        self._changed = changed
        self._round = round_id

    def note(self, text: str) -> None:
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {text}"))

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        pass

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        game = LadderGame(self._round, line.game, tuple(line.ranking))
        self._changed()
        if self._tell is not None:
            order = ", ".join(game.ranking)
            fields = {"round": self._round, "game": line.game, "ranking": list(game.ranking)}
            self._tell(ScreenEvent(Kind.LADDER_GAME, f"ladder {line.game}: {order}", fields))


class Ladder:
    """Rounds played one after another until stopped; paused while a night plays."""

    def __init__(
        self, server: LeagueServer, table_size: int, jobs: int, tell: Screen | None
    ) -> None:
        self._server = server
        self._tell = tell
        self.rules = Rules(sizes=(table_size,))
        self.jobs = jobs
        self.secret = b""
        """Read (or made) at the first start: a server that never plays the ladder has none."""
        self.playing: tuple[str, tuple[str, ...]] | None = None
        """The round in play and its entrants, if any."""
        self.changes = 0
        """Counts every change of its status: a page looks at the status again only when this
        has moved (the status reads the store)."""
        self._board = _Board()
        self._running = asyncio.Event()
        self._stopping = False
        self._round: Tournament | None = None
        self._task: asyncio.Task[None] | None = None
        self._night: object | None = None
        self.error: str | None = None

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def paused(self) -> bool:
        """Held for a night, with no game of its own in flight any more."""
        return self.active and not self._running.is_set() and self._round is None

    def _changed(self) -> None:
        self.changes += 1

    def start(self) -> None:
        """Play (a stopped ladder starts again, a paused one stays paused for its night)."""
        if not self.secret:
            config = self._server.config
            self.secret = load_secret(secret_path(config.league, config.out))
        self._stopping = False
        if self._night is None:
            self._running.set()
        if not self.active:
            self._task = asyncio.ensure_future(self._loop())
        self._changed()

    async def stop(self) -> None:
        """Finish the games in flight, then end."""
        self._stopping = True
        self._running.set()
        self._changed()
        if self._round is not None:
            self._round.request_stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        self._changed()

    async def pause(self, night: object) -> None:
        """Finish the round's games in flight and hold while `night` plays; its round is
        resumed when the ladder goes on."""
        self._night = night
        self._running.clear()
        if self._round is not None:
            self._round.request_stop()
        while self._round is not None:
            await asyncio.sleep(0.05)
        self._changed()

    def go_on(self, night: object) -> None:
        """The night is over: play again, if the ladder was not stopped meanwhile."""
        if self._night is night:
            self._night = None
            if self.active:
                self._running.set()
            self._changed()

    def status(self) -> LadderStatus:
        """How it stands now: for `arena admin ladder status` and the web pages."""
        standings, latest = self._board.read(self._server.store)
        round_id, table = self.playing or ("", ())
        return LadderStatus(
            running=self.active and not self._stopping,
            paused=self.paused,
            table_size=self.rules.sizes[0],
            round=round_id,
            table=table,
            standings=tuple(s.row(rank) for rank, s in enumerate(standings, start=1)),
            latest=tuple(latest),
            error=self.error,
        )

    def report(self) -> apb.LadderResponse:
        """The status as the admin service sends it."""
        status = self.status()
        reply = apb.LadderResponse(
            running=status.running,
            paused=status.paused,
            table=list(status.table),
            error=status.error or "",
            table_size=status.table_size,
        )
        for s in status.standings:
            reply.standings.add(name=s.bot, mu=s.mu, sigma=s.sigma, games=s.games)
        for game in status.latest:
            reply.latest.add(round=game.round, game_id=game.game_id, ranking=list(game.ranking))
        return reply

    def lines(self) -> list[tuple[str, GameLine]]:
        """Every ladder game on record, in the order its board rates them (an author's
        ladder history is drawn from them)."""
        store = self._server.store
        ids = {tid for tid, _ in store.tournaments() if is_ladder(tid)}
        return store.lines(ids) if ids else []

    def rounds(self) -> list[tuple[int, Path]]:
        out = self._server.config.out
        if not out.is_dir():
            return []
        found = [(ROUND.fullmatch(p.name), p) for p in out.iterdir() if p.is_dir()]
        return sorted((int(m.group(1)), p) for m, p in found if m is not None)

    def standings(self) -> list[Standing]:
        return self._board.read(self._server.store)[0]

    async def _loop(self) -> None:
        while not self._stopping:
            await self._running.wait()
            if self._stopping:
                break
            if not self._running.is_set():  # paused between the wait and now: a night is on
                continue
            try:
                played = await self._next_round()
            except (TournamentError, LadderError, OSError) as error:
                played = self._failed(str(error))
            except Exception as error:  # the server stays up; its log says what went wrong
                played = self._failed(f"{type(error).__name__}: {error}")
            if not played:
                await asyncio.sleep(IDLE_S)

    def _failed(self, why: str) -> bool:
        """A round that could not be played: said, kept for the status, tried again later."""
        self.error = why
        self._changed()
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {why}"))
        return False

    async def _next_round(self) -> bool:
        """Resume a round a kill or a pause left unfinished, else play a new one; False when
        there is nothing to play."""
        rounds = self.rounds()
        if rounds:
            number, folder = rounds[-1]
            info = read_info(folder)
            if info.status is not RunStatus.FINISHED and info.played:
                await self._play(number, None, folder)
                return True
            number += 1 if info.played else 0  # a folder that never began is laid out anew
        else:
            number = 0
        table = self._choose(number)
        if table is None:
            return False
        await self._play(number, table, None)
        return True

    def _field(self) -> tuple[list[str], set[str]]:
        """The entrants who can play now: those with a playing version, and the connected."""
        server = self._server
        submitted = set(server.store.playing_versions(None))
        known = server.store.entrants()
        connected = {n for n in server.lobby.connected() if known.get(n)}
        return sorted(submitted | connected), submitted

    def _choose(self, number: int) -> Table | None:
        names, _ = self._field()
        size = self.rules.sizes[0]
        if len(names) < size:
            return None
        rated = {s.name: s for s in self.standings()}
        entrants = [
            Entrant(n, Rating(rated[n].mu, rated[n].sigma), rated[n].games)
            if n in rated
            else Entrant(n, Rating(25.0, 25.0 / 3), 0)
            for n in names
        ]
        return choose(entrants, self.rules, Draw(self.secret, number))

    async def _play(self, number: int, table: Table | None, resume: Path | None) -> None:
        server = self._server
        config = server.config
        round_id = f"{PREFIX}{number:06d}"
        base: TournamentConfig = dataclasses.replace(
            config.defaults,
            out=config.out,
            league=config.league,
            name=round_id,
            seed=round_seed(self.secret, number),
            table_size=self.rules.sizes[0],
            games=self.rules.sizes[0],
            jobs=self.jobs,
            bots_dir=None,
        )
        remote: list[str] = []
        lineup = None
        seats: tuple[str, ...] = ()
        if resume is None and table is not None:
            seats = table.seats
            _, submitted = self._field()
            pinned = [n for n in table.seats if n in submitted]
            remote = [n for n in table.seats if n not in submitted]
            lineup = compose(server.store, server.versions.files, pinned) if pinned else None
            if lineup is not None:
                base = dataclasses.replace(base, bots_dir=lineup.folder)
        elif resume is not None:
            info = read_info(resume)
            seats = tuple(info.entrants or ())
            remote = [n for n in seats if n in server.lobby.connected()]
        self.playing = (round_id, seats)
        self._changed()
        observer: Observer = _Recorder(self._tell, self._changed, round_id)
        tournament = Tournament(base, observer)
        self._round = tournament
        local_ca = server.local_tls.ca_file if server.local_tls is not None else None
        venue = Venue(server.referee, server.port, tuple(remote), local_ca)
        try:
            if lineup is not None:
                await make_way(lineup, server.referee, observer.note)
            await tournament.run(resume, venue=venue)
        finally:
            self._round = None
            self.playing = None
            self._changed()
