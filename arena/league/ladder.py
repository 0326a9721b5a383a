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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.ladder import Draw, Entrant, LadderError, Rules, Table, choose
from arena.league.ladder_board import LadderBoard, LadderGame
from arena.league.ladder_fit import LadderFit, LadderGames
from arena.league.ladder_ratings import RatingState, Version, VersionRatings
from arena.league.ladder_recorder import RoundRecorder
from arena.league.ladder_rounds import (
    PREFIX,
    ROUND,
    load_secret,
    on_record,
    round_seed,
    secret_path,
)
from arena.league.ladder_sideline import Sideline, why_out
from arena.league.ladder_status import LadderStatus, LadderTable
from arena.league.screen import Kind, Screen, ScreenEvent
from arena.submissions.lineups import compose, make_way
from arena.tournament.config import TooFewBotsError, TournamentConfig, TournamentError, Venue
from arena.tournament.info import RunStatus
from arena.tournament.play.observer import Observers
from arena.tournament.play.tables import TableWatcher
from arena.tournament.results.resuming import read_info
from arena.tournament.tournament import Observer, Tournament

if TYPE_CHECKING:
    from arena.league.server import LeagueServer
    from arena.records import GameLine

IDLE_S = 1.0
"""How often a ladder with too few entrants looks again."""


class RoundWatcher(Observer, TableWatcher, Protocol):
    """Who follows a round's games as they are played (the live page): its tables, event by
    event, and each game's end."""


@dataclass(frozen=True, slots=True)
class _Plan:
    """A round to play next: a new table, or an unfinished round's folder to resume."""

    number: int
    table: Table | None
    resume: Path | None
    seats: tuple[str, ...]
    """The table's entrants by seat (a resumed round's entrants)."""

    @property
    def round_id(self) -> str:
        return f"{PREFIX}{self.number:06d}"


class Ladder:
    """Rounds played until stopped, several tables at once; paused while a night plays.

    `jobs` games at a time: a round plays its table in every rotation, as many games as it
    has seats, so `jobs // largest size` tables are in play at once (at least one), each with
    up to its size of the jobs. With several sizes the matchmaker draws each table's. The
    tables in play are disjoint: no entrant sits at two, so a bot's games, logs and limits are
    one round's at a time, and a remote bot's sessions are never shared between rounds.
    """

    def __init__(
        self, server: LeagueServer, sizes: tuple[int, ...], jobs: int, tell: Screen | None
    ) -> None:
        self._server = server
        self._tell = tell
        self.rules = Rules(sizes=sizes)
        self.jobs = jobs
        """Games at a time, over every table: a round's are at most its size."""
        self.tables_at_once = max(1, jobs // max(sizes))
        self.secret = b""
        """Read (or made) at the first start: a server that never plays the ladder has none."""
        self.changes = 0
        """Counts every change of its status: a page looks at the status again only when this
        has moved (the status reads the store)."""
        self.tables: dict[str, tuple[str, ...]] = {}
        """The tables in play, by round, each by seat (a resumed round's entrants)."""
        self._running = asyncio.Event()
        self._stopping = False
        self._busy: set[int] = set()
        """The rounds taken, from their choosing to their end, by number."""
        self._rounds: dict[int, Tournament] = {}
        """The rounds in play, by number: what a stop or a pause asks to stop."""
        self._open: set[int] | None = None
        """Rounds on disk that may not be finished, to read at the next choice: every folder
        at the first (what a kill or an earlier run left), then each round that ended since.
        A finished one is read once and dropped, so a choice never lists the whole folder."""
        self._highest = -1
        """The highest round on disk."""
        self._task: asyncio.Task[None] | None = None
        self._night: object | None = None
        self._ratings = VersionRatings(server.config.out)
        self._board = LadderBoard(self._ratings)
        self.sideline = Sideline()
        self.fit = LadderFit()
        """The batch fit's ratings, which feed the matchmaker (`ladder_fit` says why)."""
        self._trouble = False
        """Whether a round just failed: the next waits `IDLE_S`, not to spin on it."""
        self.error: str | None = None
        self.watch: Callable[[str], RoundWatcher] | None = None
        """Who follows each round's games (the live page), given the round's name: set by
        whoever serves the page."""

    def _changed(self) -> None:
        self.changes += 1

    @property
    def active(self) -> bool:
        return self._task is not None and not self._task.done()

    @property
    def paused(self) -> bool:
        """Held for a night, with no game of its own in flight any more."""
        return self.active and not self._running.is_set() and not self._busy

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
        for tournament in self._rounds.values():
            tournament.request_stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task
        await self.fit.stop()
        self._changed()

    async def pause(self, night: object) -> None:
        """Finish the rounds' games in flight and hold while `night` plays; the rounds are
        resumed when the ladder goes on."""
        self._night = night
        self._running.clear()
        for tournament in self._rounds.values():
            tournament.request_stop()
        while self._busy:
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
        state, latest = self._read_board()
        table = state.rated().current(self._field())
        return LadderStatus(
            running=self.active and not self._stopping,
            paused=self.paused,
            table_sizes=self.rules.sizes,
            tables=tuple(LadderTable(r, seats) for r, seats in sorted(self.tables.items())),
            standings=tuple(s.row(rank) for rank, (_, s) in enumerate(table, start=1)),
            versions={s.name: version.number for version, s in table},
            latest=tuple(latest),
            sitting_out=tuple(self.sideline.now()),
            error=self.error,
        )

    def lines(self) -> list[tuple[str, GameLine]]:
        """Every ladder game on record, in the order its board rates them (an author's
        ladder games are drawn from them)."""
        store = self._server.store
        ids = {tid for tid, _ in on_record(store)}
        return store.lines(ids) if ids else []

    def rating_path(self, name: str) -> list[float]:
        """`name`'s rating (mu - 3 sigma of the version that played) after each of its ladder
        games: its last is its row's on the board while that version plays."""
        state, _ = self._read_board()
        return state.paths.get(name, [])

    def _read_board(
        self, rounds: Sequence[tuple[str, int]] | None = None
    ) -> tuple[RatingState, list[LadderGame]]:
        store = self._server.store
        busy = {f"{PREFIX}{number:06d}" for number in self._busy}
        return self._board.read(store, on_record(store) if rounds is None else rounds, busy)

    def _folder(self, number: int) -> Path:
        return self._server.config.out / f"{PREFIX}{number:06d}"

    def _on_disk(self) -> set[int]:
        """Every round with a folder, read once: later rounds are this ladder's own."""
        out = self._server.config.out
        if not out.is_dir():
            return set()
        found = (ROUND.fullmatch(p.name) for p in out.iterdir() if p.is_dir())
        return {int(m.group(1)) for m in found if m is not None}

    async def _loop(self) -> None:
        flying: set[asyncio.Task[None]] = set()
        try:
            while not self._stopping:
                await self._running.wait()
                if self._stopping:
                    break
                if not self._running.is_set():  # paused between the wait and now
                    continue
                self._fill(flying)
                if not flying or self._trouble:
                    self._trouble = False
                    await asyncio.sleep(IDLE_S)
                    continue
                done, _ = await asyncio.wait(
                    flying, timeout=IDLE_S, return_when=asyncio.FIRST_COMPLETED
                )
                flying -= done
        finally:
            if flying:
                await asyncio.gather(*flying, return_exceptions=True)

    def _fill(self, flying: set[asyncio.Task[None]]) -> None:
        """Start rounds until `tables_at_once` are in play or there is nothing to play."""
        flying -= {task for task in flying if task.done()}
        while len(flying) < self.tables_at_once:
            try:
                plan = self._next()
            except (TournamentError, LadderError, OSError) as error:
                self._failed(str(error))
                return
            if plan is None:
                return
            self._busy.add(plan.number)  # taken now: the next choice sees it
            self.tables[plan.round_id] = plan.seats
            self._changed()
            flying.add(asyncio.ensure_future(self._round(plan)))

    def _failed(self, why: str) -> None:
        """A round that could not be played: said, kept for the status, tried again later."""
        self.error = why
        self._trouble = True
        self._changed()
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {why}"))

    def _next(self) -> _Plan | None:
        """A round a kill or a pause left unfinished, else a new table; None when there is
        nothing to play now."""
        if self._open is None:
            self._open = self._on_disk()
            self._highest = max(self._open, default=-1)
        fresh = None
        for number in sorted(self._open - self._busy):
            folder = self._folder(number)
            if not folder.is_dir():
                self._open.discard(number)  # removed by hand: nothing to resume
                continue
            info = read_info(folder)
            if info.status is RunStatus.FINISHED:
                self._open.discard(number)
            elif info.played:
                return _Plan(number, None, folder, info.players())
            elif fresh is None:
                fresh = number  # a folder that never began is laid out anew
        number = max(self._highest, *self._busy, -1) + 1 if fresh is None else fresh
        table = self._choose(number)
        return None if table is None else _Plan(number, table, None, table.seats)

    def _field(self) -> dict[str, Version]:
        """The entrants who can play now, each by the version it would play: its playing
        submitted version, or (with none) itself dialled in."""
        server = self._server
        known = server.store.entrants()
        field = {n: Version(n, None) for n in server.lobby.connected() if known.get(n)}
        for name, row in server.store.playing_versions(None).items():
            field[name] = Version(name, row.version)
        return field

    def _choose(self, number: int) -> Table | None:
        seated = {name for seats in self.tables.values() for name in seats}
        field = {
            n: v
            for n, v in self._field().items()
            if n not in seated and (v.number is None or not self.sideline.sitting_out(n, v.number))
        }
        if len(field) < min(self.rules.sizes):
            return None
        rounds = on_record(self._server.store)
        games = sum(n for _, n in rounds)
        if self.fit.due(games):
            config = self._server.config
            self.fit.refit(LadderGames(config.league, config.out), games, len(field))
        rated = self._read_board(rounds)[0].rated()
        fitted = self.fit.ratings
        entrants = []
        for _, version in sorted(field.items()):
            rating, games = rated.of(version)
            entrants.append(Entrant(version.name, fitted.get(version.label, rating), games))
        return choose(entrants, self.rules, Draw(self.secret, number))

    async def _round(self, plan: _Plan) -> None:
        """One round played to its end or its stop; a failure said, never raised."""
        try:
            await self._play(plan)
        except (TournamentError, LadderError, OSError) as error:
            self._failed(str(error))
        except Exception as error:  # the server stays up; its log says what went wrong
            self._failed(f"{type(error).__name__}: {error}")
        finally:
            self._busy.discard(plan.number)
            del self.tables[plan.round_id]
            if self._open is not None and self._folder(plan.number).is_dir():
                self._open.add(plan.number)  # read at the next choice: finished, or to resume
                self._highest = max(self._highest, plan.number)
            self._changed()

    async def _play(self, plan: _Plan) -> None:
        server = self._server
        config = server.config
        round_id = plan.round_id
        base: TournamentConfig = dataclasses.replace(
            config.defaults,
            out=config.out,
            league=config.league,
            name=round_id,
            seed=round_seed(self.secret, plan.number),
            table_size=len(plan.seats),
            games=len(plan.seats),
            jobs=min(self.jobs, len(plan.seats)),
            bots_dir=None,
        )
        remote: list[str] = []
        lineup = None
        local: dict[str, int | None] = {}
        """The submitted entrants, by version: the ones a crash sits out."""
        if plan.table is not None:
            field = self._field()
            local = {n: field[n].number for n in plan.seats if n in field and field[n].number}
            remote = [n for n in plan.seats if n not in local]
            lineup = compose(server.store, server.versions.files, list(local)) if local else None
            if lineup is not None:
                base = dataclasses.replace(base, bots_dir=lineup.folder)
        else:
            assert plan.resume is not None
            bots = read_info(plan.resume).bots
            local = {n: b.version.number for n, b in bots.items() if b.version is not None}
            remote = [n for n in plan.seats if n in server.lobby.connected()]
        observer: Observer = RoundRecorder(self._tell, self._changed, round_id)
        watcher = self.watch(round_id) if self.watch is not None else None
        if watcher is not None:
            observer = Observers(observer, watcher)
        tournament = Tournament(base, observer, tables=watcher)
        self._rounds[plan.number] = tournament
        local_ca = server.local_tls.ca_file if server.local_tls is not None else None
        venue = Venue(server.referee, server.port, tuple(remote), local_ca)
        try:
            if self._stopping or not self._running.is_set():
                return  # stopped or paused while it was being chosen: played later, if ever
            if lineup is not None:
                await make_way(lineup, server.referee, observer.note)
            summary = await tournament.run(plan.resume, venue=venue)
        except TooFewBotsError as error:
            for name in set(error.skipped) & set(local):
                self._sit_out(name, local[name], f"could not play {round_id}")
            raise
        finally:
            del self._rounds[plan.number]
        for name, version in local.items():
            why = why_out(name, summary.faults, dict(summary.skipped), round_id)
            if why is None:
                self.sideline.cleared(name)
            else:
                self._sit_out(name, version, why)

    def _sit_out(self, name: str, version: int | None, why: str) -> None:
        seconds = self.sideline.out(name, version, why)
        self._changed()
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {name} sits out {seconds:g} s: {why}"))
