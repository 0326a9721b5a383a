"""Playing a schedule: which game next, on which sessions, and into the books.

Several workers take games from one `GameRunner`. Each game is played where the
tournament says (`arena.tournament.play.tables`: on the sessions of its referee's
lobby, or on a cluster's hosts) and is recorded (log, replay, league store)
before the next is taken, so a crash never loses a finished game. The
runner knows nothing of processes or servers: the tournament hands it the
tables to play on and the places to write.

A write that fails (a full disk, a broken league store) stops the run the
way Ctrl-C does: the games in flight end as they would have and are recorded
where they can be, nothing is charged to a bot, and the books are closed
only as far as the disk allows, so a resume takes up exactly where it was.
A league store that cannot be reached for a while is waited for, with play
going on (`arena.tournament.results.league_writes`).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass

from arena.records import GameLine
from arena.referee.match import GameRecord, GameSpec
from arena.referee.service.descriptors import DescriptorReserve
from arena.referee.service.lobby import Lobby
from arena.store import LeagueStore, StoreError
from arena.store.causes import Cause, folder_advice, folder_failure
from arena.tournament.info import TournamentInfo
from arena.tournament.play.game_logs import GameLogMarks
from arena.tournament.play.observer import Observer, Progress
from arena.tournament.play.recovery import Recovery
from arena.tournament.play.tables import LobbyTables, Tables, TablesGoneError, TableWatcher
from arena.tournament.play.until_confident import UntilConfident
from arena.tournament.report.decisions import decision_timing, faults_by_kind
from arena.tournament.report.ratings import rate_all, result_of
from arena.tournament.report.standings import board_away
from arena.tournament.report.summary import Summary
from arena.tournament.report.timeouts import TimingReport
from arena.tournament.results.folder import FinishedGames, TournamentFolder
from arena.tournament.results.league_writes import DEFAULT_STORE_PATIENCE_S, LeagueWriter
from arena.tournament.schedule.round_robin import ScheduledGame


@dataclass(frozen=True, slots=True)
class Waiting:
    """A bot that left while games wait for it, and the seconds of its grace left."""

    name: str
    grace_left: float


class GameRunner:
    """Plays the games of a schedule, as many at once as it has workers, and records each as
    it ends.

    With a `reconnect_grace` (remote bots), a game waits while one of its bots
    is not connected and other games go first; games still waiting after the
    grace, with nothing else in flight, are dropped. Without it (local bots),
    an absent bot is faulted in each of its games.
    """

    def __init__(
        self,
        folder: TournamentFolder,
        info: TournamentInfo,
        lobby: Lobby,
        store: LeagueStore,
        observer: Observer,
        stopping: asyncio.Event,
        reconnect_grace: float | None = None,
        recovery: Recovery | None = None,
        tables: TableWatcher | None = None,
        where: Tables | None = None,
        store_patience: float = DEFAULT_STORE_PATIENCE_S,
        game_logs: GameLogMarks | None = None,
    ) -> None:
        """`where` the games are played: by default on `lobby`'s sessions; `store_patience`:
        seconds to wait for a league store that cannot be reached before stopping;
        `game_logs` marks each game's part of the local bots' logs."""
        self.observer = observer
        self.game_logs = game_logs
        self.recovery = recovery
        self.tables = tables
        self.stopping = stopping
        self.reconnect_grace = reconnect_grace
        self.error: str | None = None
        """Why the run had to stop (results could not be written), if it did."""
        self.then = "once that is fixed"
        """When a resume can take up the run stopped for `error`."""
        self._told: set[str] = set()
        """The problems with the folder already told to the observer."""
        self.folder = folder
        self.info = info
        self.lobby = lobby
        self.store = store
        self.seed = folder.seed()
        self.ruleset = info.plan.ruleset
        self.clock = info.plan.time
        self.schedule = folder.schedule(info)
        self.where = where or LobbyTables(lobby, self.seed, self.clock)
        finished = self._check_folder()
        lines = finished.lines
        self.league = LeagueWriter(
            store, info.id, folder.games_path, store_patience, observer.note, self._outage
        )
        for line in lines:  # a crash may have come between the log and the store
            self.league.offer(line)
        done = finished.ids
        self.live = rate_all(
            [result_of(line) for line in sorted(lines, key=lambda x: x.index)], info.players()
        )
        self.pending = deque(g for g in self.schedule if g.game_id not in done)
        level = info.plan.until_confident
        self.until = None if level is None else UntilConfident(level, info, self.schedule, lines)
        self._looking: asyncio.Future[None] | None = None
        if self.until is not None:
            self.pending = self.until.in_groups(self.pending)
            self._look()
        self._opening_look = self._looking
        """A resume's look at what it found: no game is begun before it tells, so that a
        run stopped once the order was known only finishes the groups it had begun."""
        self.in_flight = 0
        self._waiting_for: tuple[str, ...] = ()
        """The absent bots last announced, so that a wait is said once, not per worker."""
        self._gone_since: dict[str, float] = {}
        """When each absent bot was found gone (monotonic): its grace counts from then."""
        self.timing = TimingReport(info.plan.time)
        self.reserve = DescriptorReserve()
        self.progress = Progress(len(done), len(self.schedule), time.monotonic(), 0)
        observer.started(folder.root, list(info.players()), self.progress)

    async def worker(self) -> None:
        if self._opening_look is not None:
            await asyncio.shield(self._opening_look)
        while self.pending and not self.stopping.is_set():
            game = self._take()
            if game is None:
                await self._wait_for_players()
                continue
            self.in_flight += 1
            if self.until is not None:
                self.until.taken(game)
            try:
                await self._play_one(game)
            finally:
                self.in_flight -= 1

    def _take(self) -> ScheduledGame | None:
        if self.reconnect_grace is None:
            return self.pending.popleft()
        connected = self.lobby.connected()
        for i, game in enumerate(self.pending):
            if all(connected.get(name) for name in game.players):
                del self.pending[i]
                for name in game.players:  # back: a later absence has a grace of its own
                    self._gone_since.pop(name, None)
                return game
        return None

    def waiting(self) -> list[Waiting]:
        """The absent bots the waiting games need, with the grace each has left."""
        if self.reconnect_grace is None:
            return []
        now = time.monotonic()
        return [
            Waiting(name, max(0.0, self.reconnect_grace - (now - self._gone_since[name])))
            for name in sorted(self._absent() & self._gone_since.keys())
        ]

    async def _wait_for_players(self) -> None:
        """Wait for the absent bots until the last one's grace, counted from when it left, is over.

        Games are dropped together, so the wait lasts until every absent bot
        has had its whole grace; a bot that comes back and leaves again starts
        a new one.
        """
        if self.recovery is not None:  # a local bot that died is started again, if it may be
            gone = self._absent()
            await self.recovery.ready(sorted(gone))
            if self._absent() != gone:
                return
        grace = self.reconnect_grace or 0.0
        stopping = self.stopping
        now = time.monotonic()
        absent = tuple(sorted(self._absent()))
        for name in self._gone_since.keys() - set(absent):
            del self._gone_since[name]
        for name in absent:
            self._gone_since.setdefault(name, now)
        if absent and absent != self._waiting_for:
            who = "; ".join(
                f"{w.name} (disconnected), {w.grace_left:.0f} s of grace left"
                for w in self.waiting()
            )
            self.observer.note(f"waiting for {who}; {len(self.pending)} games wait")
        self._waiting_for = absent
        last = max((self._gone_since[n] for n in absent), default=now)
        left = last + grace - now
        # With games in flight the wait goes on past the grace: their end is a change.
        timeout = left if left > 0 else grace
        # A stop must not wait out the grace, nor drop the games it was waiting for.
        waits = (
            asyncio.ensure_future(self.lobby.changed(timeout)),
            asyncio.ensure_future(stopping.wait()),
        )
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        changed = waits[0].done() and not waits[0].cancelled() and waits[0].result()
        over = time.monotonic() >= last + grace
        if not over or stopping.is_set() or self.in_flight or not self.pending:
            return
        away = tuple(sorted(self._absent()))
        if changed and away != absent:
            return  # one of them came back, or another left (with a grace of its own)
        # Over, with the same bots away: other comings and goings (a visitor, say) do not
        # put it off, or a lobby that never rests would keep the games waiting for ever.
        self.observer.note(
            f"dropping {len(self.pending)} games: {', '.join(away)} did not come back "
            f"within {grace:.0f} s"
        )
        self.info = self.info.with_dropped(g.game_id for g in self.pending)
        self.pending.clear()

    def _absent(self) -> set[str]:
        """Bots of the waiting games that have no session open."""
        return {n for g in self.pending for n in g.players} - set(self.lobby.connected())

    async def _play_one(self, game: ScheduledGame) -> None:
        spec = GameSpec(game.game_id, game.players, game.deal_key, self.ruleset)
        if self.recovery is not None:
            await self.recovery.ready(game.players)
        tables = self.tables
        watch = None if tables is None else tables.table_opened(spec)
        marking = (
            contextlib.nullcontext() if self.game_logs is None else self.game_logs.during(spec)
        )
        try:
            with marking:
                record = await self.where.play(spec, watch)
            self.timing.add(record)
            self._record(record, game.index)
        except TablesGoneError as error:  # not recorded: a resume plays it
            self._stop(str(error))
        finally:
            if tables is not None:
                tables.table_closed(spec.game_id)

    def _record(self, record: GameRecord, index: int) -> None:
        try:
            line = self.reserve.run(lambda: self.folder.record_game(record, index))
        except OSError as error:
            self._stop(
                folder_failure(f"recording game {record.spec.game_id}", error, self.folder.root)
            )
            return
        try:
            self.reserve.run(lambda: self.league.offer(line))
        except StoreError as error:
            # The game is on record in games.jsonl: a resume gives it to the store.
            self._stop(str(error))
            return
        self.live.add(result_of(line))
        if self.until is not None:
            self.until.recorded(line)
            self._look()
        p = self.progress
        self.progress = Progress(p.done + 1, p.total, p.started, p.played_now + 1)
        self.observer.game_finished(line, self.live.table(), self.progress)

    def conclude(self, why: str) -> None:
        """End the run before its schedule does, for a reason of the caller's (an A/B test's
        verdict): the games not begun are dropped, the games in flight end and count, and
        the run finishes, seed revealed, once they have."""
        if self.info.concluded is None:
            dropped = (g.game_id for g in self.pending)
            self.info = self.info.with_conclusion(why).with_dropped(dropped)
            self.pending.clear()
        self.stopping.set()

    def _look(self) -> None:
        """With --until-confident: once the order is known, begin no further group.

        The bootstrap that tells runs away from the event loop (`board_away`), one look at
        a time: the games go on meanwhile, and a Ctrl-C is not held for it."""
        if self.until is None or (self._looking is not None and not self._looking.done()):
            return
        whole = self.until.due()
        if whole is not None:
            self._looking = asyncio.ensure_future(self._look_at(self.until, whole))

    async def _look_at(self, until: UntilConfident, whole: list[GameLine]) -> None:
        seen = await board_away(
            [(self.info.id, x) for x in whole], self.info.players(), self.stopping
        )
        games = until.seen(whole, seen)
        if games is None:
            return
        left = len(self.pending)
        self.pending = until.begun(self.pending)
        self.observer.note(
            f"every adjacent pair is separated at {until.level:.0%} after {games} games "
            f"of whole rotation groups: finishing the groups begun, and leaving "
            f"{left - len(self.pending)} games of the budget unplayed"
        )

    def _stop(self, why: str, then: str = "once that is fixed") -> None:
        if self.error is None:  # the first failure is the one to tell
            self.error, self.then = why, then
        self.stopping.set()

    def _outage(self, why: str, outage: bool) -> None:
        """The league store was not back within the patience (or a fault that does not pass
        came while it was waited for): stop, telling the truth."""
        if not outage:
            self._stop(why)
            return
        self._stop(f"{why}; a resume gives the league the games it lacks", "once the store is back")

    def _check_folder(self) -> FinishedGames:
        """The finished games, telling (once each) of lines left out and replays gone bad."""
        finished = self.folder.finished(self.schedule)
        for problem in [*finished.problems, *self.folder.replay_problems(finished.lines)]:
            if problem not in self._told:
                self._told.add(problem)
                self.observer.note(problem)
        return finished

    async def finish(self) -> Summary:
        """Rate every recorded game in schedule order and close the books on this run; the
        bootstrap is given up if the run is asked to stop while it reckons. The games owed to
        an unreachable league store are waited for first (within the patience): a run is
        finished only once the league holds every game."""
        await self.league.settled()
        if self._looking is not None:  # the games are all in: the closing board tells now
            self._looking.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._looking
        lines = sorted(self.reserve.run(lambda: self._check_folder().lines), key=lambda x: x.index)
        info = self.info
        if self.recovery is not None:  # counted in the record, written with the rest
            info = info.with_restarts(self.recovery.restarts)
        final = await board_away([(info.id, x) for x in lines], info.players(), self.stopping)
        table = final.table
        every = len(lines) + len(info.dropped) == len(self.schedule)
        done_ids = {x.game for x in lines}
        whole = self.until is not None and self.until.stopped_whole(done_ids)
        complete = (every or whole) and self.error is None and not self.league.owed
        outcome = None
        if self.until is not None:
            known, outcome = self.until.outcome(final, len(lines), complete, every)
            info = info.with_confidence_outcome(known)
        if complete:
            # For `arena verify`, with --until-confident: planned, and not needed.
            unplayed = (
                None if every else [g.game_id for g in self.schedule if g.game_id not in done_ids]
            )
            info = info.as_finished(self.seed.hex(), time.time(), unplayed)
        else:
            info = info.as_interrupted()
        timing = decision_timing(
            self.folder.replays, (x.game for x in lines), info.plan.time.move_time
        )
        outliers = {t.bot: (t.p99_ms, t.slowest_ms) for t in timing.bots}
        links = {t.bot: t.round_trip_ms for t in timing.bots if t.round_trip_ms is not None}
        try:
            if self.folder.games_path.is_file():  # books of a lost record would say what is false
                self.reserve.run(
                    lambda: self.folder.write_leaderboard(table, final.sure, outliers, links)
                )
                self.reserve.run(lambda: self.folder.write_cross(final.cross))
                self.reserve.run(lambda: self.folder.write_info(info))
            else:
                self._stop(f"{self.folder.games_path} is missing; {folder_advice(Cause.MISSING)}")
        except OSError as error:
            # games.jsonl holds every game: a resume writes these again.
            self._stop(folder_failure("closing the books", error, self.folder.root))
        if self.error is not None:
            info = info.as_interrupted()
        self.info = info
        self.reserve.release()
        return Summary(
            self.folder.root,
            info.status,
            table,
            len(lines),
            len(self.schedule),
            info.seed,
            faults=faults_by_kind(lines),
            slowest=timing.slowest,
            times=timing.bots,
            skipped=tuple((s.name, s.reason) for s in info.skipped),
            notes=(*timing.notes(), *self.timing.notes()),
            board=final,
            outcome=outcome,
        )
