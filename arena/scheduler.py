"""Playing a schedule: which game next, on which sessions, and into the books.

Several workers take games from one scheduler. Each game borrows a session of
every bot at once, is played by a `Match`, and is recorded (log, replay,
league store) before the next is taken, so a crash never loses a finished
game. The scheduler knows nothing of processes or servers: the tournament
hands it a lobby to borrow from and the places to write.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.descriptors import DescriptorReserve
from arena.lobby import Lobby
from arena.match import AbsentSeat, GameSpec, Match, Seat
from arena.ratings import Standing, rate_all
from arena.results import TournamentFolder, result_of
from arena.schedule import ScheduledGame, build
from arena.store import LeagueStore
from arena.timing_report import TimingReport
from engine import Ruleset


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    total: int
    started: float
    """Monotonic time when play began."""
    played_now: int
    """Games played in this run (not counting those of a resumed run's past)."""


@dataclass(frozen=True, slots=True)
class Summary:
    folder: Path
    status: str
    table: list[Standing]
    games: int
    total: int
    seed_hex: str | None
    notes: tuple[str, ...] = ()
    """What the run's timing says (see `TimingReport`), for the end-of-run summary."""


class Observer(Protocol):
    """What the terminal (or a test) is told while a tournament runs."""

    def note(self, text: str) -> None: ...

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None: ...

    def game_finished(
        self, line: dict[str, Any], table: list[Standing], progress: Progress
    ) -> None: ...


class Scheduler:
    """Hands the games of a schedule to workers and records each as it ends.

    With a `reconnect_grace` (remote bots), a game waits while one of its bots
    is not connected and other games go first; games still waiting after the
    grace, with nothing else in flight, are dropped. Without it (local bots),
    an absent bot is faulted in each of its games.
    """

    def __init__(
        self,
        folder: TournamentFolder,
        info: dict[str, Any],
        lobby: Lobby,
        store: LeagueStore,
        observer: Observer,
        stopping: asyncio.Event,
        reconnect_grace: float | None = None,
    ) -> None:
        self.observer = observer
        self.stopping = stopping
        self.reconnect_grace = reconnect_grace
        self.error: str | None = None
        """Why the run had to stop (results could not be written), if it did."""
        self.folder = folder
        self.info = info
        self.lobby = lobby
        self.store = store
        self.seed = folder.seed()
        self.ruleset = Ruleset.from_mapping(info["ruleset"])
        self.schedule = build(info["entrants"], info["table_size"], info["games"], self.seed)
        lines = list(folder.games())
        for line in lines:  # a crash may have come between the log and the store
            store.add_game(info["id"], line)
        done = {line["game"] for line in lines}
        self.live = rate_all(
            [result_of(line) for line in sorted(lines, key=lambda x: x["index"])], info["entrants"]
        )
        self.pending = deque(g for g in self.schedule if g.game_id not in done)
        self.dropped: list[str] = info.setdefault("dropped", [])
        self.in_flight = 0
        self.timing = TimingReport()
        self.reserve = DescriptorReserve()
        self.progress = Progress(len(done), len(self.schedule), time.monotonic(), 0)
        observer.started(folder.root, info["entrants"], self.progress)

    async def worker(self) -> None:
        while self.pending and not self.stopping.is_set():
            game = self._take()
            if game is None:
                await self._wait_for_players()
                continue
            self.in_flight += 1
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
                return game
        return None

    async def _wait_for_players(self) -> None:
        grace = self.reconnect_grace or 0.0
        stopping = self.stopping
        # A stop must not wait out the grace, nor drop the games it was waiting for.
        waits = (
            asyncio.ensure_future(self.lobby.changed(grace)),
            asyncio.ensure_future(stopping.wait()),
        )
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for wait in waits:
                wait.cancel()
        changed = waits[0].done() and not waits[0].cancelled() and waits[0].result()
        if changed or stopping.is_set() or self.in_flight or not self.pending:
            return
        absent = sorted({n for g in self.pending for n in g.players} - set(self.lobby.connected()))
        self.observer.note(
            f"dropping {len(self.pending)} games: {', '.join(absent)} did not come back "
            f"within {grace:.0f} s"
        )
        self.dropped.extend(g.game_id for g in self.pending)
        self.pending.clear()

    async def _play_one(self, game: ScheduledGame) -> None:
        spec = GameSpec(game.game_id, game.players, game.deal_key, self.ruleset)
        borrowed = await self.lobby.borrow_table(game.players)
        seats: list[Seat] = [  # in seat order: borrowed keeps the order it was given
            s if s is not None else AbsentSeat(n, f"{n} has no session open (not connected)")
            for n, s in borrowed.items()
        ]
        try:
            match = Match(
                spec, seats, self.seed, self.info["move_time"], self.info.get("time_margin", 0.0)
            )
            record = await match.play()
            self.timing.add(record)
        finally:
            for session in borrowed.values():
                if session is not None:
                    await self.lobby.give_back(session)
        try:
            line = self.reserve.run(lambda: self.folder.record_game(record, game.index))
            self.reserve.run(lambda: self.store.add_game(self.info["id"], line))
        except OSError as error:
            self.error = f"cannot write results ({error}); stopped with every finished game on disk"
            self.stopping.set()
            return
        self.live.add(result_of(line))
        p = self.progress
        self.progress = Progress(p.done + 1, p.total, p.started, p.played_now + 1)
        self.observer.game_finished(line, self.live.table(), self.progress)

    def finish(self) -> Summary:
        """Rate every recorded game in schedule order and close the books on this run."""
        lines = self.reserve.run(lambda: sorted(self.folder.games(), key=lambda x: x["index"]))
        table = rate_all([result_of(x) for x in lines], self.info["entrants"]).table()
        self.reserve.run(lambda: self.folder.write_leaderboard(table))
        info = self.info
        complete = len(lines) + len(self.dropped) == len(self.schedule)
        info["status"] = "finished" if complete else "interrupted"
        if complete:
            info["seed"] = self.seed.hex()
            info["finished"] = time.time()
        self.reserve.run(lambda: self.folder.write_info(info))
        self.reserve.release()
        return Summary(
            self.folder.root,
            info["status"],
            table,
            len(lines),
            len(self.schedule),
            info["seed"],
            tuple(self.timing.notes()),
        )
