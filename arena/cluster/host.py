"""A host: one referee and the bot processes it needs, on one machine of a cluster.

It is the tournament's local machinery, started on another node: the same
`Lineup` finds and builds the bots (with the same build cache in each bot's
folder), the same referee takes their sessions on loopback and a Unix socket,
and the same `LobbyTables` plays each game it is handed from the tournament's
seed and the game's deal key. It keeps no books: each finished `GameRecord`
goes back to the coordinator, which alone writes. A Ray actor wraps it
(`arena.cluster.hosts`); nothing here knows of Ray.
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import shutil
import socket
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.limits import Confinement, raise_open_files_limit
from arena.bots.isolation.sandbox import decide
from arena.cluster.budget import BotBudget
from arena.cluster.plan import HostGame, HostPlan, HostReady
from arena.cluster.rss import tree_rss
from arena.records import GameLine
from arena.referee.match import GameSpec
from arena.referee.service.referee_server import Referee
from arena.tournament.play.lineup import Lineup, own_referee
from arena.tournament.play.observer import Progress
from arena.tournament.play.tables import LobbyTables
from arena.tournament.report.ratings import Standing
from arena.tournament.results.folder import TournamentFolder

RETIRE_GRACE = 2.0
"""Seconds a bot told goodbye (its host's budget is full) has to exit by itself."""


class HostNotes:
    """The host's observer: what its lineup says is kept, to go back with the next answer."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def note(self, text: str) -> None:
        self.lines.append(text)

    def building(self, name: str, running: bool) -> None:
        """Builds are said in notes too (`Lineup._build`); a host has no screen to time them."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """The coordinator starts the tournament, not a host."""

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        """The coordinator records games, not a host."""

    def take(self) -> tuple[str, ...]:
        lines, self.lines = tuple(self.lines), []
        return lines


class Host:
    def __init__(self, plan: HostPlan) -> None:
        self.plan = plan
        self.notes = HostNotes()
        bots_dir = Path(plan.bots_dir) if plan.bots_dir is not None else Path.cwd()
        played = dataclasses.replace(plan.info.plan, bots_dir=str(bots_dir))  # this node's copy
        self.info = dataclasses.replace(plan.info, plan=played)
        self.lineup = Lineup(dataclasses.replace(plan.config, bots_dir=bots_dir), self.notes)
        self.budget = BotBudget(plan.max_bots, self.info.plan.table_size or 2)
        self._scratch = Path(tempfile.mkdtemp(prefix="perudo-host-"))  # 0700: logs, the socket
        self._cgroups = CgroupRoot.find()
        self._referee: Referee | None = None
        self._tables: LobbyTables | None = None
        self._changed = asyncio.Condition()
        self._bot_locks: defaultdict[str, asyncio.Lock] = defaultdict(asyncio.Lock)
        self._started: set[str] = set()

    async def open(self) -> HostReady:
        """Start the referee, build the bots; which of them can play here."""
        raise_open_files_limit()
        sandbox = decide(self.plan.config.sandbox, self.plan.config.build_network)
        referee, port = await own_referee(self.info.plan.time.move_time, self._scratch)
        self._referee = referee
        lineup = self.lineup
        self.info = lineup.confine(
            Confinement(sandbox, self._cgroups, referee.unix_socket, referee.tls), self.info
        )
        folder = TournamentFolder(self._scratch)
        lobby = referee.lobby
        bots = await lineup.prepare(folder, self.info, self.info.played, lobby.tokens)
        lineup.ready(bots, lobby.tokens, lobby, port, folder, self.plan.jobs)
        self._tables = LobbyTables(lobby, self.plan.seed, self.info.plan.time)
        where = (
            f"{socket.gethostname()} (pid {os.getpid()}), bots from {self.info.plan.bots_dir}, "
            f"logs in {folder.logs}"
        )
        return HostReady(where, tuple(b.name for b in bots), self.notes.take())

    async def play(self, spec: GameSpec) -> HostGame:
        """Play one game, starting its bots first (and stopping others past the budget)."""
        assert self._tables is not None, "open the host before handing it games"
        async with self._changed:
            while (turnover := self.budget.take(spec.players)) is None:
                await self._changed.wait()
        try:
            for name in turnover.stop:
                await self._retire(name)
            starts = [n for n in spec.players if await self._launch(n)]
            record = await self._tables.play(spec, None)
        finally:
            async with self._changed:
                self.budget.give_back(spec.players)
                self._changed.notify_all()
        restarts = sum(1 for n in starts if n in self._started)
        self._started.update(starts)
        return HostGame(record, len(starts), restarts, self.budget.running, self.notes.take())

    async def _launch(self, name: str) -> bool:
        """Start `name` unless it is connected already; whether it was started."""
        assert self._referee is not None
        lobby = self._referee.lobby
        async with self._bot_locks[name]:
            if lobby.connected().get(name):
                return False
            if name in self.lineup.processes:  # it died: whatever it left behind goes first
                await self.lineup.retire(name, grace=0)
            why = await self.lineup.launch(name)
            if why is not None:
                self.notes.note(f"{name}: {why}; its seat in this game is a fault")
            return True

    async def _retire(self, name: str) -> None:
        """Stop `name` for the budget, and wait until its sessions are gone from the lobby."""
        assert self._referee is not None
        referee = self._referee
        async with self._bot_locks[name]:
            for session in [s for s in referee.lobby.all_sessions() if s.name == name]:
                await referee.goodbye(session, "its host's bot budget is full")
            if name in self.lineup.processes:
                await self.lineup.retire(name, RETIRE_GRACE)
            deadline = time.monotonic() + self.plan.config.connect_timeout
            while referee.lobby.connected().get(name) and time.monotonic() < deadline:
                await referee.lobby.changed(0.5)

    def bot_memory(self) -> dict[str, int]:
        """Resident memory (bytes) of each bot running here, its every process added up."""
        return {n: tree_rss(p.process.pid) for n, p in self.lineup.processes.items() if p.alive}

    async def close(self) -> tuple[str, ...]:
        """Stop the referee and every bot; what was left to say."""
        try:
            if self._referee is not None:
                await self._referee.stop("the tournament is over")
            await self.lineup.stop()
        finally:
            if self._cgroups is not None:
                self._cgroups.remove()
            shutil.rmtree(self._scratch, ignore_errors=True)
        return self.notes.take()
