"""The local bots of one run: found, built, started, and waited for until they connect.

Every bot that will not play is kept with why, to be said at the end and kept in
tournament.json; every process started is kept, so the run can stop them all
however it ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from pathlib import Path

from arena.bots.builds import buildstamp
from arena.bots.builds.build import run_build
from arena.bots.isolation.environment import arena_variables
from arena.bots.isolation.limits import Confinement, check_descriptors
from arena.bots.manifest import BotSpec, ManifestError, load_entry
from arena.bots.run.capacity import usable_cores
from arena.bots.run.logdrain import last_line
from arena.bots.run.processes import BotProcess
from arena.bots.toolchains import refusal
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.service.referee_server import Referee, ServerLimits
from arena.referee.session.exits import describe_exit, exit_probe
from arena.text import printable
from arena.tournament.config import TooFewBotsError, TournamentConfig, too_few
from arena.tournament.info import Skipped, TournamentInfo
from arena.tournament.play.observer import Observer
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.versions import bots_of, read_pins


async def own_referee(move_time: float, private: Path) -> tuple[Referee, int]:
    """A referee for this machine's bots alone: on loopback, and on a Unix socket in
    `private` (a folder only the arena may enter); its port."""
    referee = Referee(
        Lobby(TokenBook(), max_sessions_per_bot=64), ServerLimits(move_time=move_time)
    )
    port = await referee.start("127.0.0.1:0", unix_socket=private / "referee.sock")
    return referee, port


STARTING_PER_CORE = 4
"""Bots started and not yet connected, at most, per usable core. Every bot loads its
interpreter and libraries as it starts: five hundred at once on two cores left the last
of them no CPU within their connect time, and the referee none to admit the first."""
MIN_WAVE = 8
GRACEFUL_BOTS = 32
"""Local bots that are told goodbye at the end of a run and left to exit in their own time.
More are ended at once (SIGKILL): 250 interpreters exiting together held the referee for
12 s, 500 for 33 s, after a Ctrl-C; ended at once, 250 took 2.4 s from the Ctrl-C to the
arena's exit. What a bot flushed to its log is kept either way."""


class Lineup:
    def __init__(self, config: TournamentConfig, observer: Observer) -> None:
        self.config = config
        self.observer = observer
        self.processes: dict[str, BotProcess] = {}
        self.skipped: list[Skipped] = []
        """Bots that will not play, with why: said at the end and kept in tournament.json."""
        self.confinement = Confinement()
        self._launch: tuple[TokenBook, Lobby, int, TournamentFolder, int] | None = None
        """How the bots were started (tokens, lobby, port, folder, jobs), for a restart."""
        self._specs: dict[str, BotSpec] = {}
        self._started: dict[str, float] = {}
        """When each bot was last started (monotonic): its connect time counts from then."""
        self._pinned: set[str] = set()
        """Submitted versions: built and checked when they were taken in, never built again."""

    def confine(self, confinement: Confinement, info: TournamentInfo) -> TournamentInfo:
        """Say at the start how far the local bots are kept apart; `info` saying it too."""
        self.confinement = confinement
        if info.plan.bots_dir is None:
            return info  # remote bots only: nothing here to isolate
        isolation = confinement.describe(self.config.limits)
        for line in isolation:
            self.observer.note(line)
        return info.with_isolation(isolation)

    async def await_connections(
        self, bots: list[BotSpec], lobby: Lobby, folder: TournamentFolder
    ) -> set[str]:
        """Wait until every started bot has connected or died, or its connect time is up
        (its manifest's, else --connect-timeout)."""
        waiting = {b.name for b in bots if b.name in self.processes}
        while self._unsettled(waiting, lobby):
            await asyncio.sleep(0.05)
        connected = set(lobby.connected()) & waiting
        for name in sorted(waiting - connected):
            log = folder.logs / f"{name}.log"
            process = self.processes[name]
            if process.alive:
                seconds, given = self._specs[name].connect_window(self.config.connect_timeout)
                why = f"did not connect within {seconds:g} s ({given}); stopped"
                await process.stop(grace=0)
            else:
                code = await process.exit_status()
                how = "exited" if code is None else describe_exit(code)
                why = f"{how} before connecting"
            self._skip(name, f"{why}: {last_line(log)}", f"{why}: {last_line(log)} (log: {log})")
        return connected

    def _unsettled(self, names: set[str], lobby: Lobby) -> set[str]:
        """Of `names`, the bots started that are still on their way: not connected, alive,
        and within their connect time, counted from their own start."""
        connected = lobby.connected()
        now = time.monotonic()
        return {
            n
            for n in names
            if not connected.get(n)
            and self.processes[n].alive
            and now - self._started[n] < self._window(n)
        }

    def _window(self, name: str) -> float:
        """The seconds `name` has to connect: its manifest's, else --connect-timeout."""
        return self._specs[name].connect_window(self.config.connect_timeout)[0]

    def _skip(self, name: str, reason: str, said: str = "") -> None:
        """Keep why a bot will not play, and say it (`said`, or the reason). Both as text:
        a reason quotes the bot's log, its build's output or its manifest, and an entry's
        name is whatever its author called the file."""
        name, reason = printable(name), printable(reason)
        self.skipped.append(Skipped(name, reason))
        self.observer.note(f"{name}: {printable(said) if said else f'skipped: {reason}'}")

    def too_few(self, playing: list[str]) -> TooFewBotsError:
        """Why there is no tournament: who could play, and each other bot's reason."""
        reasons = "".join(f"; {s.name}: {s.reason}" for s in self.skipped)
        return TooFewBotsError(too_few(playing) + reasons, [s.name for s in self.skipped])

    async def prepare(
        self,
        folder: TournamentFolder,
        info: TournamentInfo,
        resuming: bool,
        tokens: TokenBook,
        need: int = 2,
    ) -> list[BotSpec]:
        if info.plan.bots_dir is None:
            return []
        found, problems = bots_of(Path(info.plan.bots_dir))
        for entry, reason in problems:
            self._skip(entry, reason)
        found = self._with_extra(found, info.plan.extra_bots)
        pinned = read_pins(Path(info.plan.bots_dir))  # an entrant's own submitted version
        self._pinned = set(pinned)
        for bot in [b for b in found if tokens.knows(b.name) and b.name not in pinned]:
            # Its token would replace the entrant's for the night: the entrant locked out.
            self._skip(
                bot.name,
                "a registered remote entrant has that name",
                "refused: a registered remote entrant has that name; rename the local bot",
            )
            found.remove(bot)
        if resuming:
            entrants = set(info.players())
            found = [b for b in found if b.name in entrants]
            for name in sorted(entrants - {b.name for b in found}):
                self.observer.note(
                    f"{name}: no longer in {info.plan.bots_dir}; its games are faults"
                )
            for bot in found:
                if bot.files_hash != info.bots[bot.name].files_sha256:
                    self.observer.note(f"{bot.name}: its files changed since the run began")
        usable = []
        for bot in found:
            missing = bot.missing_programs(self.confinement.strict)
            if missing and self.confinement.strict:
                self._skip(bot.name, refusal(missing))
            elif missing:
                self._skip(bot.name, f"needs {', '.join(missing)}, not found on PATH")
            else:
                usable.append(bot)
        builds = await asyncio.gather(*(self._build(b, folder) for b in usable))
        ready = [bot for bot, built in zip(usable, builds, strict=True) if built]
        if len(ready) < need and not resuming:
            raise self.too_few([b.name for b in ready])
        return ready

    def _with_extra(self, found: list[BotSpec], extra: Sequence[str]) -> list[BotSpec]:
        """The bots folder's bots and the entries named apart from it (an A/B test's NEW and
        OLD); an extra entry takes the place of the folder's bot of its name."""
        for entry in map(Path, extra):
            try:
                spec = load_entry(entry)
            except ManifestError as error:
                self._skip(entry.name, str(error))
                continue
            if spec is None:
                self._skip(entry.name, "not a bot: a folder with a bot.toml, or a script")
                continue
            same = [b for b in found if b.name == spec.name]
            if same and same[0].path.resolve() != spec.path.resolve():
                self.observer.note(f"{spec.name}: {spec.path} plays, not {same[0].path}")
            found = [b for b in found if b.name != spec.name] + [spec]
        return found

    async def _build(self, bot: BotSpec, folder: TournamentFolder) -> bool:
        """Build one bot, saying when it starts and how long it took: builds can take minutes."""
        if bot.build is None or bot.name in self._pinned:
            return True  # a version plays its tree as it was checked: a rebuild could change it
        # Listing a build's outputs may take a second: not in the loop other builds' drains share.
        if not self.config.rebuild and await asyncio.to_thread(buildstamp.current, bot):
            self.observer.note(f"{bot.name}: unchanged since its last build: not rebuilt")
            return True
        log = folder.logs / f"{bot.name}.build.log"
        first = (
            ""
            if await asyncio.to_thread(buildstamp.built_before, bot)
            else "; " + buildstamp.FIRST_BUILD
        )
        timeout = self.config.limits.build_time_for(bot)
        self.observer.note(f"building {bot.name} (up to {timeout:.0f} s{first})")
        began = time.monotonic()
        self.observer.building(bot.name, running=True)
        try:
            failure = await run_build(bot, {}, log, self.config.limits, self.confinement)
        finally:
            self.observer.building(bot.name, running=False)
        elapsed = time.monotonic() - began
        if failure is not None:
            self._skip(bot.name, f"{failure} (after {elapsed:.1f} s; see {log})")
            return False
        self.observer.note(f"built {bot.name} in {elapsed:.1f} s")
        return True

    def ready(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        """Keep how `bots` are started here, so that each can be launched when it is needed."""
        check_descriptors(bots, jobs)
        self._launch = (tokens, lobby, port, folder, jobs)
        self._specs.update((bot.name, bot) for bot in bots)

    async def start(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        self.ready(bots, tokens, lobby, port, folder, jobs)
        wave = max(MIN_WAVE, STARTING_PER_CORE * usable_cores())
        for bot in bots:
            while len(self._unsettled(set(self._started), lobby)) >= wave:
                await asyncio.sleep(0.05)
            try:
                await self._start_one(bot)
            except OSError as error:
                self._skip(bot.name, f"cannot start: {error}", f"cannot start: {error}")

    async def _start_one(self, bot: BotSpec) -> int:
        """Start one bot with a fresh token; the sessions it is asked to open."""
        assert self._launch is not None
        tokens, lobby, port, folder, jobs = self._launch
        sessions = min(bot.sessions or jobs, jobs)
        address = self.confinement.address(port)
        env = arena_variables(address, bot.name, tokens.issue(bot.name), sessions)
        env.update(self.confinement.tls_variables())
        process = await BotProcess.start(
            bot, env, folder.logs / f"{bot.name}.log", self.config.limits, self.confinement
        )
        self._started[bot.name] = time.monotonic()
        self.processes[bot.name] = process
        lobby.crash_probes[bot.name] = exit_probe(process.process)
        lobby.process_ids[bot.name] = process.process.pid
        return sessions

    async def restart(self, name: str) -> str | None:
        """Start a bot whose process died again, as it was started; why not, if it did not
        come back (it could not start, or did not connect within the connect timeout)."""
        await self.processes[name].stop(grace=0)  # whatever it left behind, and its cgroup
        return await self.launch(name)

    async def launch(self, name: str) -> str | None:
        """Start the bot `name` (one of those made `ready`) and wait until it has connected;
        why not, if it could not start or did not connect within the connect timeout."""
        assert self._launch is not None
        lobby = self._launch[1]
        try:
            sessions = await self._start_one(self._specs[name])
        except OSError as error:
            return f"cannot start: {error}"
        timeout, given = self._specs[name].connect_window(self.config.connect_timeout)
        if name in await lobby.wait_for([name], sessions, timeout) or lobby.connected().get(name):
            return None
        return f"did not connect within {timeout:g} s ({given})"

    async def retire(self, name: str, grace: float) -> None:
        """Stop one bot until it is launched again (a cluster host's bot budget), saying
        if some of its output could not be kept."""
        process = self.processes.pop(name)
        await process.stop(grace)
        if process.output_lost is not None:
            self.observer.note(f"{name}: {process.output_lost}")

    def end_a_large_field(self) -> None:
        """At the end of a run, a field larger than `GRACEFUL_BOTS` is ended at once, before
        its goodbyes: a smaller one is told goodbye and left to exit as it likes."""
        if len(self.processes) > GRACEFUL_BOTS:
            for process in self.processes.values():
                process.end_now()

    async def stop(self) -> None:
        """Stop every process started, and say whose output could not all be kept."""
        await asyncio.gather(*(p.stop() for p in self.processes.values()))
        for name, process in self.processes.items():
            if process.output_lost is not None:
                self.observer.note(f"{name}: {process.output_lost}")
