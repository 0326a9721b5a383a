"""A tournament from start to finish: bots in, leaderboard out.

Discover and build the bots, start the referee on a local port, start each
bot with its address and token, wait for them to connect, play the schedule
with several games at once, record each game the moment it ends, and stop
everything that was started, however the run ends. A run that was stopped
(Ctrl-C, a crash, SIGKILL) resumes from its folder without losing or
repeating a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import engine
from arena.auth import TokenBook
from arena.lobby import Lobby
from arena.manifest import BotSpec, ManifestError, discover
from arena.match import AbsentSeat, GameSpec, Match, Seat
from arena.processes import BotProcess, ResourceLimits, run_build
from arena.ratings import Standing, rate_all
from arena.results import TournamentFolder, result_of
from arena.schedule import ScheduledGame, build
from arena.server import Referee, ServerLimits
from arena.store import LeagueStore
from engine import Ruleset


class TournamentError(Exception):
    """The tournament cannot go on; the message says why."""


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    bots_dir: Path
    out: Path = Path("results")
    table_size: int | None = None
    """Players per game; None means every entrant, up to 6."""
    games: int = 120
    jobs: int = 6
    ruleset: Ruleset = field(default_factory=Ruleset)
    move_time: float = 1.0
    seed: bytes | None = None
    league: Path | None = None
    """The league store; None means `out/league.sqlite`."""
    connect_timeout: float = 20.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    name: str | None = None

    @property
    def league_path(self) -> Path:
        return self.league if self.league is not None else self.out / "league.sqlite"


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


class Observer(Protocol):
    """What the terminal (or a test) is told while a tournament runs."""

    def note(self, text: str) -> None: ...

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None: ...

    def game_finished(
        self, line: dict[str, Any], table: list[Standing], progress: Progress
    ) -> None: ...


class Tournament:
    def __init__(self, config: TournamentConfig, observer: Observer) -> None:
        self.config = config
        self.observer = observer
        self._stopping = asyncio.Event()
        self._workers: list[asyncio.Task[None]] = []
        self._processes: dict[str, BotProcess] = {}
        self._error: str | None = None

    def request_stop(self) -> None:
        """Finish the games in flight, then stop (the first Ctrl-C)."""
        self._stopping.set()

    def abort(self) -> None:
        """Stop now, abandoning the games in flight (the second Ctrl-C)."""
        self._stopping.set()
        for task in self._workers:
            task.cancel()

    async def run(self, resume: Path | None = None) -> Summary:
        folder, info = self._open(resume)
        store = LeagueStore(self.config.league_path if resume is None else Path(info["league"]))
        referee: Referee | None = None
        try:
            bots = await self._prepare_bots(folder, info, resume is not None)
            tokens = TokenBook()
            lobby = Lobby(tokens, max_sessions_per_bot=64)
            referee = Referee(lobby, ServerLimits(move_time=info["move_time"]))
            port = await referee.start("127.0.0.1:0")
            await self._start_bots(bots, tokens, lobby, port, folder, info["jobs"])
            connected = await self._await_connections(bots, lobby, folder)
            if resume is None:
                entrants = sorted(connected)
                if len(entrants) < 2:
                    raise TournamentError(
                        f"fewer than two bots can play ({', '.join(entrants) or 'none'}); "
                        f"nothing to do"
                    )
                info.update(self._entrant_info(entrants, bots))
                folder.write_info(info)
            store.add_tournament(info["id"], info)
            return await self._play(folder, info, lobby, store)
        finally:
            if referee is not None:
                await referee.stop("the tournament is over")
            await asyncio.gather(*(p.stop() for p in self._processes.values()))
            store.close()

    async def _await_connections(
        self, bots: list[BotSpec], lobby: Lobby, folder: TournamentFolder
    ) -> set[str]:
        """Wait until every started bot has connected or died, or the timeout."""
        deadline = time.monotonic() + self.config.connect_timeout
        waiting = {b.name for b in bots if b.name in self._processes}
        while time.monotonic() < deadline:
            connected = set(lobby.connected())
            dead = {n for n in waiting - connected if not self._processes[n].alive}
            if waiting <= connected | dead:
                break
            await asyncio.sleep(0.05)
        connected = set(lobby.connected()) & waiting
        for name in sorted(waiting - connected):
            log = folder.logs / f"{name}.log"
            process = self._processes[name]
            if process.alive:
                why = f"did not connect within {self.config.connect_timeout:.0f} s"
            else:
                why = f"exited with code {process.process.returncode} before connecting"
            self.observer.note(f"{name}: {why}: {_last_line(log)} (log: {log})")
        return connected

    def _open(self, resume: Path | None) -> tuple[TournamentFolder, dict[str, Any]]:
        if resume is not None:
            folder = TournamentFolder(resume)
            try:
                info = folder.info()
            except (OSError, ValueError) as error:
                raise TournamentError(f"{resume} is not a tournament folder: {error}") from None
            if info.get("status") == "finished":
                raise TournamentError(f"{resume} has already finished")
            folder.repair()
            return folder, info
        cfg = self.config
        seed = cfg.seed or engine.new_seed()
        tid = cfg.name or time.strftime("%Y%m%d-%H%M%S") + "-" + engine.commitment(seed)[:6]
        fresh: dict[str, Any] = {
            "id": tid,
            "status": "running",
            "created": time.time(),
            "bots_dir": str(cfg.bots_dir.resolve()),
            "league": str(cfg.league_path.resolve()),
            "ruleset": cfg.ruleset.to_mapping(),
            "table_size": cfg.table_size,
            "games": cfg.games,
            "jobs": cfg.jobs,
            "move_time": cfg.move_time,
            "seed_sha256": engine.commitment(seed),
            "seed": None,
        }
        try:
            folder = TournamentFolder.create(cfg.out / tid, fresh, seed)
        except FileExistsError:
            raise TournamentError(
                f"{cfg.out / tid} already exists; use --resume to continue it"
            ) from None
        return folder, fresh

    def _entrant_info(self, entrants: list[str], bots: list[BotSpec]) -> dict[str, Any]:
        by_name = {b.name: b for b in bots}
        size = self.config.table_size or min(len(entrants), 6)
        if not 2 <= size <= len(entrants):
            raise TournamentError(f"--table-size {size} does not fit {len(entrants)} entrants")
        return {
            "entrants": entrants,
            "table_size": size,
            "bots": {
                n: {"path": str(by_name[n].path), "files_sha256": by_name[n].files_hash}
                for n in entrants
            },
        }

    async def _prepare_bots(
        self, folder: TournamentFolder, info: dict[str, Any], resuming: bool
    ) -> list[BotSpec]:
        try:
            found, problems = discover(Path(info["bots_dir"]))
        except ManifestError as error:
            raise TournamentError(str(error)) from None
        for entry, reason in problems:
            self.observer.note(f"{entry}: skipped: {reason}")
        if resuming:
            entrants = set(info["entrants"])
            found = [b for b in found if b.name in entrants]
            for name in sorted(entrants - {b.name for b in found}):
                self.observer.note(f"{name}: no longer in {info['bots_dir']}; its games are faults")
            for bot in found:
                if bot.files_hash != info["bots"][bot.name]["files_sha256"]:
                    self.observer.note(f"{bot.name}: its files changed since the run began")
        usable = []
        for bot in found:
            missing = bot.missing_programs()
            if missing:
                self.observer.note(
                    f"{bot.name}: skipped: needs {', '.join(missing)}, not found on PATH"
                )
            else:
                usable.append(bot)
        builds = await asyncio.gather(
            *(run_build(b, {}, folder.logs / f"{b.name}.build.log") for b in usable)
        )
        ready = []
        for bot, failure in zip(usable, builds, strict=True):
            if failure is None:
                ready.append(bot)
            else:
                self.observer.note(
                    f"{bot.name}: skipped: {failure} (see {folder.logs / f'{bot.name}.build.log'})"
                )
        if len(ready) < 2 and not resuming:
            raise TournamentError(
                f"fewer than two bots can play ({', '.join(b.name for b in ready) or 'none'}); "
                "nothing to do"
            )
        return ready

    async def _start_bots(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        for bot in bots:
            sessions = min(bot.sessions or jobs, jobs)
            env = {
                "PERUDO_ADDRESS": f"127.0.0.1:{port}",
                "PERUDO_BOT_NAME": bot.name,
                "PERUDO_TOKEN": tokens.issue(bot.name),
                "PERUDO_SESSIONS": str(sessions),
            }
            try:
                process = await BotProcess.start(
                    bot, env, folder.logs / f"{bot.name}.log", self.config.limits
                )
            except OSError as error:
                self.observer.note(f"{bot.name}: cannot start: {error}")
                continue
            self._processes[bot.name] = process
            lobby.crash_probes[bot.name] = _dead_probe(process)

    async def _play(
        self, folder: TournamentFolder, info: dict[str, Any], lobby: Lobby, store: LeagueStore
    ) -> Summary:
        seed = folder.seed()
        ruleset = Ruleset.from_mapping(info["ruleset"])
        schedule = build(info["entrants"], info["table_size"], info["games"], seed)
        lines = list(folder.games())
        done = {line["game"] for line in lines}
        for line in lines:  # a crash may have come between the log and the store
            store.add_game(info["id"], line)
        live = rate_all(
            [result_of(line) for line in sorted(lines, key=lambda x: x["index"])], info["entrants"]
        )
        pending = deque(g for g in schedule if g.game_id not in done)
        progress = Progress(len(done), len(schedule), time.monotonic(), 0)
        self.observer.started(folder.root, info["entrants"], progress)

        async def play_one(game: ScheduledGame) -> None:
            nonlocal progress
            spec = GameSpec(game.game_id, game.players, game.deal_key, ruleset)
            borrowed = await lobby.borrow_table(game.players)
            seats: list[Seat] = [  # in seat order: borrowed keeps the order it was given
                s if s is not None else AbsentSeat(n, f"{n} has no session open (not connected)")
                for n, s in borrowed.items()
            ]
            try:
                record = await Match(spec, seats, seed, info["move_time"]).play()
            finally:
                for session in borrowed.values():
                    if session is not None:
                        await lobby.give_back(session)
            try:
                line = folder.record_game(record, game.index)
                store.add_game(info["id"], line)
            except OSError as error:
                self._error = (
                    f"cannot write results ({error}); stopped with every finished game on disk"
                )
                self.request_stop()
                return
            live.add(result_of(line))
            progress = Progress(
                progress.done + 1, progress.total, progress.started, progress.played_now + 1
            )
            self.observer.game_finished(line, live.table(), progress)

        async def worker() -> None:
            while pending and not self._stopping.is_set():
                await play_one(pending.popleft())

        self._workers = [asyncio.ensure_future(worker()) for _ in range(info["jobs"])]
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.gather(*self._workers, return_exceptions=False)
        finished_lines = sorted(folder.games(), key=lambda x: x["index"])
        final = rate_all([result_of(x) for x in finished_lines], info["entrants"])
        table = final.table()
        folder.write_leaderboard(table)
        complete = len(finished_lines) == len(schedule)
        info["status"] = "finished" if complete else "interrupted"
        if complete:
            info["seed"] = seed.hex()
            info["finished"] = time.time()
        folder.write_info(info)
        if self._error:
            raise TournamentError(self._error)
        return Summary(
            folder.root, info["status"], table, len(finished_lines), len(schedule), info["seed"]
        )


def _last_line(log: Path) -> str:
    try:
        lines = log.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return lines[-1][:200] if lines else "(no output)"


def _dead_probe(process: BotProcess) -> Callable[[], bool]:
    return lambda: not process.alive
