"""The local bots of one run: found, built, started, and waited for until they connect.

Every bot that will not play is kept with why, to be said at the end and kept in
tournament.json; every process started is kept, so the run can stop them all
however it ends.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from arena.bots.build import run_build
from arena.bots.environment import arena_variables
from arena.bots.limits import Confinement, check_descriptors
from arena.bots.logdrain import last_line
from arena.bots.manifest import BotSpec, ManifestError, discover, load_entry
from arena.bots.processes import BotProcess
from arena.referee.auth import TokenBook
from arena.referee.exits import exit_probe
from arena.referee.pool import Lobby
from arena.tournament.config import TournamentConfig, TournamentError, too_few
from arena.tournament.folder import TournamentFolder
from arena.tournament.runner import Observer


class Lineup:
    def __init__(self, config: TournamentConfig, observer: Observer) -> None:
        self.config = config
        self.observer = observer
        self.processes: dict[str, BotProcess] = {}
        self.skipped: list[dict[str, str]] = []
        """Bots that will not play, with why: said at the end and kept in tournament.json."""
        self.confinement = Confinement()

    def confine(self, confinement: Confinement, info: dict[str, Any]) -> None:
        """Say at the start, and in tournament.json, how far the local bots are kept apart."""
        self.confinement = confinement
        if info["bots_dir"] is None:
            return  # remote bots only: nothing here to isolate
        isolation = confinement.describe(self.config.limits)
        for line in isolation:
            self.observer.note(line)
        info["isolation"] = isolation

    async def await_connections(
        self, bots: list[BotSpec], lobby: Lobby, folder: TournamentFolder
    ) -> set[str]:
        """Wait until every started bot has connected or died, or the timeout."""
        deadline = time.monotonic() + self.config.connect_timeout
        waiting = {b.name for b in bots if b.name in self.processes}
        while time.monotonic() < deadline:
            connected = set(lobby.connected())
            dead = {n for n in waiting - connected if not self.processes[n].alive}
            if waiting <= connected | dead:
                break
            await asyncio.sleep(0.05)
        connected = set(lobby.connected()) & waiting
        for name in sorted(waiting - connected):
            log = folder.logs / f"{name}.log"
            process = self.processes[name]
            if process.alive:
                why = f"did not connect within {self.config.connect_timeout:.0f} s; stopped"
                await process.stop(grace=0)
            else:
                why = f"exited with code {process.process.returncode} before connecting"
            self.observer.note(f"{name}: {why}: {last_line(log)} (log: {log})")
            self.skipped.append({"name": name, "reason": f"{why}: {last_line(log)}"})
        return connected

    def _skip(self, name: str, reason: str) -> None:
        self.skipped.append({"name": name, "reason": reason})
        self.observer.note(f"{name}: skipped: {reason}")

    def too_few(self, playing: list[str]) -> str:
        """Why there is no tournament: who could play, and each other bot's reason."""
        reasons = "".join(f"; {s['name']}: {s['reason']}" for s in self.skipped)
        return too_few(playing) + reasons

    async def prepare(
        self,
        folder: TournamentFolder,
        info: dict[str, Any],
        resuming: bool,
        tokens: TokenBook,
        need: int = 2,
    ) -> list[BotSpec]:
        found, problems = discover(Path(info["bots_dir"]))
        for entry, reason in problems:
            self._skip(entry, reason)
        found = self._with_extra(found, info.get("extra_bots", []))
        for bot in [b for b in found if tokens.knows(b.name)]:
            # Its token would replace the entrant's for the night: the entrant locked out.
            self.skipped.append(
                {"name": bot.name, "reason": "a registered remote entrant has that name"}
            )
            self.observer.note(
                f"{bot.name}: refused: a registered remote entrant has that name; "
                "rename the local bot"
            )
            found.remove(bot)
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
                self._skip(bot.name, f"needs {', '.join(missing)}, not found on PATH")
            else:
                usable.append(bot)
        builds = await asyncio.gather(*(self._build(b, folder) for b in usable))
        ready = [bot for bot, built in zip(usable, builds, strict=True) if built]
        if len(ready) < need and not resuming:
            raise TournamentError(self.too_few([b.name for b in ready]))
        return ready

    def _with_extra(self, found: list[BotSpec], extra: list[str]) -> list[BotSpec]:
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
        if bot.build is None:
            return True
        log = folder.logs / f"{bot.name}.build.log"
        self.observer.note(f"building {bot.name} (up to {bot.build_timeout:.0f} s)")
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

    async def start(
        self,
        bots: list[BotSpec],
        tokens: TokenBook,
        lobby: Lobby,
        port: int,
        folder: TournamentFolder,
        jobs: int,
    ) -> None:
        check_descriptors(bots, jobs)
        for bot in bots:
            sessions = min(bot.sessions or jobs, jobs)
            address = self.confinement.address(port)
            env = arena_variables(address, bot.name, tokens.issue(bot.name), sessions)
            try:
                process = await BotProcess.start(
                    bot,
                    env,
                    folder.logs / f"{bot.name}.log",
                    self.config.limits,
                    self.confinement,
                )
            except OSError as error:
                self.skipped.append({"name": bot.name, "reason": f"cannot start: {error}"})
                self.observer.note(f"{bot.name}: cannot start: {error}")
                continue
            self.processes[bot.name] = process
            lobby.crash_probes[bot.name] = exit_probe(process.process)
            lobby.process_ids[bot.name] = process.process.pid

    async def stop(self) -> None:
        """Stop every process started, and say whose output could not all be kept."""
        await asyncio.gather(*(p.stop() for p in self.processes.values()))
        for name, process in self.processes.items():
            if process.output_lost is not None:
                self.observer.note(f"{name}: {process.output_lost}")
