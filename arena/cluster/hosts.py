"""The coordinator's side of a cluster: one host actor per node, and which game goes where.

`arena run --cluster` keeps its schedule, seed, results folder and league store
as on one machine; only where each game is played changes (`Tables`). Hosts
are Ray actors placed one per alive node (or `--hosts N`, spread over the
nodes in turn), each pinned to its node.

Dispatch keeps restarts rare: a game goes to a host with a free slot that
already has the most of its bots running (as that host last said, plus the
bots of the games just sent to it); ties go to the least busy host. A host
that dies (its actor, or its whole node) fails the games it had in flight: each
is handed to another host and played again from its deal key, so with the same
dice; the dead host's answer can never come, so nothing is recorded twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from arena.cluster.connect import ClusterError, connect, ray_module
from arena.cluster.host import Host
from arena.cluster.plan import HostGame, HostPlan, HostReady
from arena.referee.match import GameRecord, GameSpec
from arena.tournament.config import TournamentConfig
from arena.tournament.info import TournamentInfo
from arena.tournament.play.observer import Observer
from arena.tournament.play.tables import TablesGoneError, Watch


@dataclass(frozen=True, slots=True)
class ClusterOptions:
    """How the organiser asked for the cluster (`arena run --cluster ...`)."""

    address: str
    """The cluster to join, unless this process has joined one already (the bench's)."""
    hosts: int | None = None
    """Hosts to start; None: one per alive node."""
    max_bots_per_host: int | None = None
    ship_bots: bool = False
    """Ship the bots folder to each node with Ray (its runtime environment's working
    directory) rather than read it at the same path there (a shared file system)."""

    def flags(self) -> str:
        """These options as `arena run` takes them: a resume must be given them again, since
        tournament.json keeps the night, not where it was played (a shipped bots folder
        may be nowhere else)."""
        flags = f"--cluster {self.address}"
        if self.hosts is not None:
            flags += f" --hosts {self.hosts}"
        if self.max_bots_per_host is not None:
            flags += f" --max-bots-per-host {self.max_bots_per_host}"
        return flags + (" --ship-bots" if self.ship_bots else "")


@dataclass
class HostSlot:
    """One host as the coordinator sees it."""

    name: str
    actor: Any
    """The Ray actor handle (Ray's handles are untyped)."""
    running: set[str] = field(default_factory=set)
    in_flight: int = 0
    games: int = 0
    alive: bool = True


@dataclass
class ClusterReport:
    """What the cluster did over the run: said at its end, kept for the benchmark."""

    games: dict[str, int] = field(default_factory=dict)
    """Games recorded, per host."""
    starts: int = 0
    restarts: int = 0
    replayed: list[str] = field(default_factory=list)
    """Games played again because the host they were on died."""
    lost: list[str] = field(default_factory=list)
    """Hosts that died, with why."""

    def describe(self) -> str:
        played = sum(self.games.values())
        per_host = ", ".join(f"{n}: {g}" for n, g in self.games.items())
        rate = self.restarts / played if played else 0.0
        text = (
            f"cluster: {played} games on {len(self.games)} hosts ({per_host}); "
            f"{self.starts} bot starts, {self.restarts} of them restarts of a bot its host "
            f"had stopped ({rate:.2f} restarts a game)"
        )
        if self.lost:
            text += (
                f"; {len(self.lost)} host(s) died, {len(self.replayed)} game(s) played again "
                "elsewhere from the same deal key"
            )
        return text


class RayHosts:
    """`Hosts` on a Ray cluster (see the module's docstring)."""

    def __init__(
        self, options: ClusterOptions, config: TournamentConfig, observer: Observer
    ) -> None:
        self.options = options
        self.config = config
        self.observer = observer
        self.report = ClusterReport()
        self._hosts: list[HostSlot] = []
        self._changed = asyncio.Condition()
        self._ray: ModuleType | None = None
        self._joined = False
        """Whether this run joined the cluster itself, and so leaves it at the end."""
        self._jobs = config.jobs

    def resume_flags(self) -> str:
        return self.options.flags()

    async def open(self, info: TournamentInfo, seed: bytes) -> list[str]:
        if info.plan.extra_bots:
            raise ClusterError(
                "a run with bots from outside its folder (arena ab) plays on one machine"
            )
        self._joined = not ray_module().is_initialized()
        shipped = info.plan.bots_dir if self.options.ship_bots else None
        ray = self._ray = connect(self.options.address, shipped)
        self._jobs = info.plan.jobs
        nodes = sorted((n for n in ray.nodes() if n.get("Alive")), key=lambda n: str(n["NodeID"]))
        if not nodes:
            raise ClusterError(f"the Ray cluster at {self.options.address} has no node alive")
        count = self.options.hosts or len(nodes)
        plan = HostPlan(
            info=info,
            seed=seed,
            config=self.config,
            jobs=info.plan.jobs,
            max_bots=self.options.max_bots_per_host,
            bots_dir=None if self.options.ship_bots else info.plan.bots_dir,
        )
        strategies = ray.util.scheduling_strategies
        actor_class = ray.remote(Host)
        for i in range(count):
            node = nodes[i % len(nodes)]
            pinned = strategies.NodeAffinitySchedulingStrategy(node["NodeID"], soft=False)
            actor = actor_class.options(
                num_cpus=0, scheduling_strategy=pinned, max_restarts=0
            ).remote(plan)
            name = f"host{i + 1}@{node['NodeManagerAddress']}"
            self._hosts.append(HostSlot(name, actor))
        answers = await asyncio.gather(*(self._ask(h, h.actor.open.remote()) for h in self._hosts))
        ready: set[str] | None = None
        for host, answer in zip(self._hosts, answers, strict=True):
            assert isinstance(answer, HostReady)
            self._say(host, answer.notes)
            self.observer.note(f"{host.name}: on {answer.node}; can play {len(answer.ready)} bots")
            ready = set(answer.ready) if ready is None else ready & set(answer.ready)
            self.report.games[host.name] = 0
        return sorted(ready or ())

    def slots(self) -> int:
        return self._jobs * len(self._hosts)

    async def play(self, spec: GameSpec, watch: Watch | None) -> GameRecord:
        """Play `spec` on the best host free; again elsewhere if that host dies meanwhile.

        A game on another machine is not followed event by event: `watch` is not told."""
        while True:
            host = await self._choose(spec.players)
            try:
                answer = await host.actor.play.remote(spec)
            except self._died() as error:
                await self._lost(host, error, spec.game_id)
                continue
            except self._task_error() as error:  # the host could not play it (its budget)
                cause = getattr(error, "cause", None) or error
                raise TablesGoneError(f"{host.name} cannot play {spec.game_id}: {cause}") from None
            finally:
                async with self._changed:
                    host.in_flight -= 1
                    self._changed.notify_all()
            assert isinstance(answer, HostGame)
            self._say(host, answer.notes)
            host.running = set(answer.running)
            self.report.games[host.name] += 1
            self.report.starts += answer.starts
            self.report.restarts += answer.restarts
            return answer.record

    async def _choose(self, players: tuple[str, ...]) -> HostSlot:
        async with self._changed:
            while True:
                alive = [h for h in self._hosts if h.alive]
                if not alive:
                    raise TablesGoneError(
                        "every host of the cluster is gone; the finished games are on disk, "
                        "resume when the cluster is back"
                    )
                free = [h for h in alive if h.in_flight < self._jobs]
                if free:
                    best = max(free, key=lambda h: (len(h.running & set(players)), -h.in_flight))
                    best.in_flight += 1
                    best.running |= set(players)  # it starts them for this game
                    return best
                await self._changed.wait()

    def _died(self) -> type[BaseException]:
        assert self._ray is not None
        died: type[BaseException] = self._ray.exceptions.RayActorError
        return died

    async def _lost(self, host: HostSlot, error: BaseException, game_id: str) -> None:
        """Tell of a host's death once, and that `game_id` is to be played again."""
        assert self._ray is not None
        if host.alive:
            host.alive = False
            why = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            self.report.lost.append(f"{host.name}: {why}")
            self.observer.note(f"{host.name} died ({why}); its games in flight are played again")
            self._ray.kill(host.actor)  # were it only unreachable, it must not play on
        self.report.replayed.append(game_id)
        self.observer.note(f"{game_id}: its host died mid-game; played again from its deal key")

    async def _ask(self, host: HostSlot, call: Any) -> object:
        """A host's answer to a call other than a game; `ClusterError` if it cannot give one."""
        try:
            answer: object = await call
        except self._died() as error:
            raise ClusterError(f"{host.name} died while opening: {error}") from None
        except self._task_error() as error:  # the host raised: its own error, in words
            cause = getattr(error, "cause", None) or error
            raise ClusterError(f"{host.name}: {cause}") from None
        return answer

    def _task_error(self) -> type[BaseException]:
        assert self._ray is not None
        failed: type[BaseException] = self._ray.exceptions.RayTaskError
        return failed

    def _say(self, host: HostSlot, notes: tuple[str, ...]) -> None:
        for line in notes:
            self.observer.note(f"{host.name}: {line}")

    async def bot_memory(self) -> dict[str, dict[str, int]]:
        """Resident bytes of each bot, per host alive (for the benchmark's memory figure)."""
        alive = [h for h in self._hosts if h.alive]
        answers = await asyncio.gather(*(h.actor.bot_memory.remote() for h in alive))
        return {h.name: dict(a) for h, a in zip(alive, answers, strict=True)}

    async def close(self) -> None:
        """Stop every host alive (its bots and referee), say what the cluster did, and leave."""
        if self._ray is None:
            return
        ray = self._ray
        for host in [h for h in self._hosts if h.alive]:
            try:
                self._say(host, await host.actor.close.remote())
            except self._died():
                pass  # gone already: its node took its bots with it
            ray.kill(host.actor)
        if self.report.games:
            self.observer.note(self.report.describe())
        self._hosts.clear()
        if self._joined:
            ray.shutdown()
        self._ray = None
