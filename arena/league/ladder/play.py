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
from typing import Protocol

from arena.league.ladder.board import Look
from arena.league.ladder.faults import (
    LADDER_TROUBLES,
    STORE,
    Fault,
    StoreWait,
    Troubles,
    fault_of,
)
from arena.league.ladder.folders import RoundFolders, Unfinished
from arena.league.ladder.grounds import LadderGrounds
from arena.league.ladder.preflight import culprits, unplayable
from arena.league.ladder.ratings import Version
from arena.league.ladder.recorder import RoundRecorder
from arena.league.ladder.refit import Refit
from arena.league.ladder.rounds import PREFIX, load_secret, on_record, round_seed, secret_path
from arena.league.ladder.sideline import Sideline, why_out
from arena.league.ladder.status import LadderStatus, LadderTable
from arena.league.screen import Kind, Screen, ScreenEvent
from arena.matchmaking import Draw, Entrant, LadderError, Rules, Table, choose
from arena.store import StoreError
from arena.submissions.lineups import Lineup, compose, make_way
from arena.tournament.config import TooFewBotsError, TournamentConfig, TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.play.observer import Observers
from arena.tournament.play.tables import TableWatcher
from arena.tournament.results.resuming import read_info
from arena.tournament.tournament import Observer, Tournament

IDLE_S = 1.0
"""How often a ladder with too few entrants looks again."""
BOARD_BUDGET_S = 0.05
"""The most a look at the board rates before it answers (a round at least): a start without
its kept board rates the season a look at a time (about 0.5 ms a game, 500 s at a million),
the event loop and the referee served between two looks."""


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
        self, server: LadderGrounds, sizes: tuple[int, ...], jobs: int, tell: Screen | None
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
        self.folders = RoundFolders(server.config.out, self._say, server.config.ladder_compact)
        self._task: asyncio.Task[None] | None = None
        self._ending = False
        """Whether the loop is past its last round's choice, ending (a start makes another)."""
        self._night: object | None = None
        self.refit = Refit(server.config.out)
        """The ladder's games read once, rated two ways: the board per version, and the batch
        fit the matchmaker is fed (`refit` says why)."""
        self.sideline = Sideline()
        self._sat_out: dict[str, str] = {}
        """The cause each entrant was last said to sit out for."""
        self._trouble = False
        """Whether a round just failed: the next waits `IDLE_S`, not to spin on it."""
        self.troubles = Troubles(self._say)
        """The fault that holds now, said once and counted."""
        self.halted: Fault | None = None
        """Why the ladder stopped by itself, until it is started again."""
        self.store_wait = StoreWait(server.config.defaults.store_patience)
        """A league store that cannot be reached, waited for (`--store-patience`)."""
        server.metrics.follow_ladder(LADDER_TROUBLES, self._gauge)
        self.watch: Callable[[str], RoundWatcher] | None = None
        """Who follows each round's games (the live page), given the round's name: set by
        whoever serves the page."""

    def _changed(self) -> None:
        self.changes += 1

    def _say(self, text: str) -> None:
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"ladder: {text}"))

    def _gauge(self) -> tuple[bool, str | None]:
        """What /metrics shows: whether it plays, and the kind of the fault that holds or
        that stopped it."""
        fault = self.halted or self.troubles.fault
        playing = self.active and not self._stopping and self._night is None
        return playing, None if fault is None else fault.kind

    @property
    def error(self) -> str | None:
        """Why it stopped by itself, else the fault that holds now (with its count)."""
        if self.halted is not None:
            return f"stopped: {self.halted.text}; `arena admin ladder start` starts it again"
        return self.troubles.said()

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
            try:
                self.secret = load_secret(secret_path(config.league, config.out))
            except OSError as error:  # a person's sentence, not a traceback
                raise LadderError(fault_of(error, config.out).text) from None
        self._stopping = False
        if self.halted is not None:  # started again by hand: its faults are tried afresh
            self.halted = None
            self.troubles = Troubles(self._say)
        self.store_wait.answered()
        if self._night is None:
            self._running.set()
        if not self.active:
            self._task = asyncio.ensure_future(self._loop())
        elif self._ending:  # stopped by itself, its rounds still finishing: then play again
            self._task = asyncio.ensure_future(self._loop(after=self._task))
        self._changed()

    def _halt(self, fault: Fault) -> None:
        """Stop by itself for `fault`: said on the screen (and so in the log), kept for the
        status and /metrics until the ladder is started again."""
        self.halted = fault
        self._stopping = True
        self._running.set()
        for tournament in self._rounds.values():
            tournament.request_stop()
        self._say(f"stopped: {fault.text}; `arena admin ladder start` starts it again")
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
        await self.refit.stop()
        with contextlib.suppress(OSError, StoreError):  # a cache: its loss costs a slow start
            self._look()  # the rounds just finished settled, then kept for the next start
            self.refit.save()
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
        """How it stands now: for `arena admin ladder status` and the web pages. A store
        that cannot be read leaves the board out, not the rest: the status is how a fault
        of the store is seen."""
        error = self.error
        try:
            look = self._look()
            table, latest = look.state.rated().current(self._field()), look.latest
        except StoreError as fault:
            table, latest = [], []
            error = error or str(fault)
        if self.refit.behind and error is None:
            error = (
                "rating the ladder's games on record afresh (no kept board to start from): "
                "the board shows the rounds rated so far, and no table is chosen until all are"
            )
        return LadderStatus(
            running=self.active and not self._stopping,
            paused=self.paused,
            table_sizes=self.rules.sizes,
            tables=tuple(LadderTable(r, seats) for r, seats in sorted(self.tables.items())),
            standings=tuple(s.row(rank) for rank, (_, s) in enumerate(table, start=1)),
            versions={s.name: version.number for version, s in table},
            latest=tuple(latest),
            sitting_out=tuple(self.sideline.now()),
            error=error,
        )

    def rating_path(self, name: str) -> Sequence[float]:
        """`name`'s rating (mu - 3 sigma of the version that played) after each of its ladder
        games: its last is its row's on the board while that version plays."""
        return self._look().state.paths.get(name, [])

    def _look(self) -> Look:
        busy = {f"{PREFIX}{number:06d}" for number in self._busy}
        return self.refit.look(self._server.store, busy, BOARD_BUDGET_S)

    def _rating(self) -> bool:
        """Whether the board is still rating the season on record (a start without its
        kept board): a look more rated, and no table chosen on a board rated part way."""
        try:
            self._look()
        except StoreError:
            return False  # the round's choice that follows meets it too, and counts it once
        if self.refit.behind:
            self._changed()
        return self.refit.behind

    async def _loop(self, after: asyncio.Task[None] | None = None) -> None:
        if after is not None:
            await asyncio.gather(after, return_exceptions=True)
        self._ending = False
        flying: set[asyncio.Task[None]] = set()
        try:
            while not self._stopping:
                await self._running.wait()
                if self._stopping:
                    break
                if not self._running.is_set():  # paused between the wait and now
                    continue
                if self._rating():
                    await asyncio.sleep(0)  # the event loop's other work between two looks
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
        except Exception as error:  # never ended without a word: said, and in the status
            self._halt(fault_of(error, self._server.config.out))
        finally:
            self._ending = True  # past its last look at `_stopping`: a start needs a new loop
            if flying:
                await asyncio.gather(*flying, return_exceptions=True)

    def _fill(self, flying: set[asyncio.Task[None]]) -> None:
        """Start rounds until `tables_at_once` are in play or there is nothing to play."""
        flying -= {task for task in flying if task.done()}
        while len(flying) < self.tables_at_once:
            try:
                plan = self._next()
            except StoreError as error:
                self._store_down(error)
                return
            except Exception as error:  # said once, counted, tried again in a second
                self._failed(fault_of(error, self._server.config.out))
                return
            self.store_wait.answered()
            self.troubles.cleared(frozenset({STORE}))
            if plan is None or set(plan.seats) & self._server.requests.seated:
                return  # an unfinished round of a bot at test games waits for their end
            self._busy.add(plan.number)  # taken now: the next choice sees it
            self.tables[plan.round_id] = plan.seats
            self._changed()
            flying.add(asyncio.ensure_future(self._round(plan)))

    def _store_down(self, error: StoreError) -> None:
        fault, stop = self.store_wait.failed(error, self._server.config.out)
        if stop:
            self._halt(fault)
        else:
            self._failed(fault)

    def _failed(self, fault: Fault) -> None:
        """A round that could not be played: said once, kept for the status, tried again
        in a second."""
        self._trouble = True
        self.troubles.happened(fault)
        self._changed()

    def _next(self) -> _Plan | None:
        """A round a kill or a pause left unfinished, else a new table; None when there is
        nothing to play now."""
        rounds = on_record(self._server.store)
        found = self.folders.next(self._busy, dict(rounds))
        if isinstance(found, Unfinished):
            return _Plan(found.number, None, found.folder, found.seats)
        table = self._choose(found)
        return None if table is None else _Plan(found, table, None, table.seats)

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
        seated |= self._server.requests.seated  # at (or held for) a request's test games
        field = {
            n: v
            for n, v in self._field().items()
            if n not in seated and (v.number is None or not self.sideline.sitting_out(n, v.number))
        }
        if len(field) < min(self.rules.sizes):
            return None
        look = self._look()
        self.refit.fit_when_due(look, len(field))
        rated = look.state.rated()
        entrants = []
        for _, version in sorted(field.items()):
            rating, games = self.refit.rating(rated, version)
            entrants.append(Entrant(version.name, rating, games))
        return choose(entrants, self.rules, Draw(self.secret, number))

    async def _round(self, plan: _Plan) -> None:
        """One round played to its end or its stop; a failure said, never raised."""
        try:
            if await self._play(plan):
                self.troubles.cleared()
                self.folders.resumed(plan.number)
                await self._fold(plan)
        except Exception as error:  # the server stays up; said once, and in the status
            self._failed(fault_of(error, self._server.config.out))
            if plan.resume is not None:
                self.folders.resume_failed(plan.number, error)
        finally:
            self._busy.discard(plan.number)
            del self.tables[plan.round_id]
            self.folders.ended(plan.number)  # read at the next choice: finished, or to resume
            self._changed()

    async def _fold(self, plan: _Plan) -> None:
        """A finished round into its day's record, its folder removed (with `ladder_compact`):
        a few files a day, not five a game. Still busy meanwhile, so no choice reads it."""
        folder = self.folders.folder(plan.number)
        if not self._server.config.ladder_compact or not folder.is_dir():
            return
        info = read_info(folder)
        if info.status is not RunStatus.FINISHED:
            return  # stopped or paused: resumed later, folded once it finishes
        store = self._server.store
        held = store.tournament(plan.round_id)
        stored = 0 if held is None else held.games
        await asyncio.to_thread(self.folders.fold, folder, stored)

    async def _play(self, plan: _Plan) -> bool:
        """Play `plan` to its end or its stop; False when it was not played (stopped or
        paused first, or a version at its table cannot play)."""
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
        seated = self._seat(plan)
        if seated is None:
            return False  # chosen again at once, without the versions that cannot play
        local, remote, lineup = seated
        if lineup is not None:
            base = dataclasses.replace(base, bots_dir=lineup.folder)
        recorder = RoundRecorder(self._tell, self._changed, round_id)
        observer: Observer = recorder
        watcher = self.watch(round_id) if self.watch is not None else None
        if watcher is not None:
            observer = Observers(recorder, watcher)
        tournament = Tournament(base, observer, tables=watcher)
        self._rounds[plan.number] = tournament
        venue = server.venue(tuple(remote))
        try:
            if self._stopping or not self._running.is_set():
                return False  # stopped or paused while it was being chosen: played later
            if lineup is not None:
                await make_way(lineup, venue.referee, recorder.note)
            summary = await tournament.run(plan.resume, venue=venue)
        except TooFewBotsError as error:
            for name in set(error.skipped) & set(local):
                self._sit_out(name, local[name], f"could not play {round_id}")
            raise
        except TournamentError as error:
            if plan.table is not None and not self.folders.began(plan.number):
                said = recorder.about(local)
                for name, cause in culprits(round_id, local, said, error).items():
                    self._sit_out(name, local[name], cause)
            raise
        finally:
            del self._rounds[plan.number]
        for name, version in local.items():
            why = why_out(name, summary.faults, dict(summary.skipped), round_id)
            if why is None:
                self.sideline.cleared(name)
                self._sat_out.pop(name, None)
            else:
                self._sit_out(name, version, why)
        return True

    def _seat(self, plan: _Plan) -> tuple[dict[str, int | None], list[str], Lineup | None] | None:
        """The round's submitted entrants by version (the ones a crash sits out), its
        entrants dialled in, and the line-up of a new table's versions; None when a version
        at a new table cannot play (it sits out)."""
        server = self._server
        if plan.resume is not None:
            bots = read_info(plan.resume).bots
            local: dict[str, int | None]
            local = {n: b.version.number for n, b in bots.items() if b.version is not None}
            return local, [n for n in plan.seats if n in server.lobby.connected()], None
        field = self._field()
        local = {n: field[n].number for n in plan.seats if n in field and field[n].number}
        unfit = unplayable(server.store, server.versions.files, list(local))
        for name, cause in unfit.items():
            self._sit_out(name, local[name], cause)
        if unfit:
            return None
        lineup = compose(server.store, server.versions.files, list(local)) if local else None
        return local, [n for n in plan.seats if n not in local], lineup

    def _sit_out(self, name: str, version: int | None, why: str) -> None:
        """`name` sits out: said, unless for the very cause it was last said to sit out for
        (a damaged version is named once, not at each of its strikes; the status lists it)."""
        seconds = self.sideline.out(name, version, why)
        self._changed()
        if self._sat_out.get(name) != why:
            self._sat_out[name] = why
            self._say(f"{name} sits out {seconds:g} s: {why}")
