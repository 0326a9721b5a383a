"""What `tournament.json` says about a run: how it was set up, who plays, how it stands.

One typed record, read and written only through `from_json` and `to_json`, so the
runner, a resume, `arena verify`, the league's rebuild and the command line all
read one shape. It changes as the run goes (entrants once the bots have connected,
the status and the seed at the end), so it is mutable; every field that a folder
written before the field existed lacks has a default that reads as that older run did.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass, field
from typing import Any

import engine
from arena.records import Json, RecordError
from arena.store import identity_of
from arena.tournament.config import AbPlan, TournamentError
from arena.tournament.schedule import Deals
from arena.tournament.versions import Pin


class RunStatus(enum.StrEnum):
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    FINISHED = "finished"


@dataclass(frozen=True, slots=True)
class Entrant:
    """One entrant: a local bot with the hash of its files (and, submitted to a league server,
    its version), or a remote one."""

    path: str | None = None
    files_sha256: str | None = None
    remote: bool = False
    version: Pin | None = None
    """The submitted version that played (`arena.tournament.versions`), if it was one."""

    def to_json(self) -> Json:
        if self.remote:
            return {"remote": True}
        data: Json = {"path": self.path, "files_sha256": self.files_sha256}
        if self.version is not None:
            data["version"] = self.version.to_json()
        return data

    @classmethod
    def from_json(cls, data: Any) -> Entrant:
        version = Pin.from_json(data["version"]) if data.get("version") is not None else None
        return cls(
            data.get("path"), data.get("files_sha256"), bool(data.get("remote", False)), version
        )


@dataclass(frozen=True, slots=True)
class Skipped:
    """A bot that did not play, and why."""

    name: str
    reason: str

    def to_json(self) -> Json:
        return {"name": self.name, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class ConfidenceOutcome:
    """How an `--until-confident` run ended: the ranking known ("separated") or the budget
    spent ("budget"), after how many of its games, and the pairs still not told apart."""

    level: float
    outcome: str
    games: int
    budget: int
    unseparated: list[tuple[str, str]]

    def to_json(self) -> Json:
        return {
            "level": self.level,
            "outcome": self.outcome,
            "games": self.games,
            "budget": self.budget,
            "unseparated": [list(p) for p in self.unseparated],
        }

    @classmethod
    def from_json(cls, data: Any) -> ConfidenceOutcome:
        pairs = [(str(a), str(b)) for a, b in data["unseparated"]]
        return cls(float(data["level"]), str(data["outcome"]), data["games"], data["budget"], pairs)


@dataclass(slots=True)
class TournamentInfo:
    id: str
    created: float
    league: str
    ruleset: engine.Ruleset
    games: int
    jobs: int
    move_time: float
    seed_sha256: str
    status: RunStatus = RunStatus.RUNNING
    run_id: str = ""
    """Made at random when the folder is laid out: which run of its name this is, for the
    league (empty in a folder from before; `identity` then reads it from the seed's
    commitment and `created`)."""
    bots_dir: str | None = None
    """None when only remote bots play (on a league server)."""
    server: bool = False
    table_size: int | None = None
    """As asked before the entrants are known (None: as many as fit, up to 6); then the size."""
    deals: Deals | None = Deals.OWN
    """None for a folder written before each game had dice of its own."""
    time_margin: float = 0.0
    time_bank: float = 0.0
    """Seconds a game each bot may spend past its move times (`--time-bank`)."""
    increment: float = 0.0
    """Seconds added to a bot's bank after each decision answered in time."""
    timeouts: bool = True
    """False for a debugging run (`--no-timeout`): no decision has a deadline."""
    gauntlet: str | None = None
    """The bot seated at every table (`--gauntlet`), if any."""
    ab: AbPlan | None = None
    """The A/B test this run is (`arena ab`), if it is one: its schedule is then pairs."""
    extra_bots: list[str] = field(default_factory=list)
    """Bot entries from outside `bots_dir` that play too (an A/B test's NEW and OLD)."""
    until_confident: float | None = None
    """The level at which `--until-confident` stops the run, if it was asked for."""
    until_confident_outcome: ConfidenceOutcome | None = None
    unplayed: list[str] = field(default_factory=list)
    """Games planned but not needed: `--until-confident` knew the ranking without them."""
    concluded: str | None = None
    """Why the run ended before its schedule did (an A/B test's verdict), if it did."""
    seed: str | None = None
    """The seed in hex, once the run has finished; secret until then."""
    finished: float | None = None
    entrants: tuple[str, ...] | None = None
    """None until the bots have connected and play can begin."""
    bots: dict[str, Entrant] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    isolation: list[str] = field(default_factory=list)
    """How far the local bots were kept apart, in the lines the run began with."""
    dropped: list[str] = field(default_factory=list)
    """Games given up on because a remote bot did not come back."""
    restarts: dict[str, int] = field(default_factory=dict)
    """Bots restarted after a crash (`--recover`), and how often."""

    @property
    def identity(self) -> str:
        """What tells this run from another of its name, as the league records it."""
        return identity_of(self.to_json())

    @property
    def played(self) -> bool:
        """Whether play began: the entrants are known and the schedule fixed."""
        return self.entrants is not None

    def players(self) -> tuple[str, ...]:
        """The entrants, for a run whose play began."""
        if self.entrants is None:
            raise TournamentError(f"tournament {self.id} never began play: it has no entrants")
        return self.entrants

    def size(self) -> int:
        """The table size, for a run whose play began."""
        if self.table_size is None:
            raise TournamentError(f"tournament {self.id} never began play: it has no table size")
        return self.table_size

    def to_json(self) -> Json:
        data: Json = {
            "id": self.id,
            "status": self.status.value,
            "created": self.created,
            "bots_dir": self.bots_dir,
            "league": self.league,
            "server": self.server,
            "ruleset": self.ruleset.to_mapping(),
            "table_size": self.table_size,
            "games": self.games,
            "jobs": self.jobs,
            "move_time": self.move_time,
            "time_margin": self.time_margin,
            "time_bank": self.time_bank,
            "increment": self.increment,
            "timeouts": self.timeouts,
            "seed_sha256": self.seed_sha256,
            "seed": self.seed,
        }
        if self.run_id:
            data["run_id"] = self.run_id
        if self.deals is not None:
            data["deals"] = self.deals.value
        if self.gauntlet is not None:
            data["gauntlet"] = self.gauntlet
        if self.ab is not None:
            data["ab"] = dataclasses.asdict(self.ab)
        if self.extra_bots:
            data["extra_bots"] = self.extra_bots
        if self.concluded is not None:
            data["concluded"] = self.concluded
        data["until_confident"] = self.until_confident
        if self.until_confident_outcome is not None:
            data["until_confident_outcome"] = self.until_confident_outcome.to_json()
        if self.unplayed:
            data["unplayed"] = self.unplayed
        if self.finished is not None:
            data["finished"] = self.finished
        if self.entrants is not None:
            data["entrants"] = list(self.entrants)
            data["bots"] = {name: entrant.to_json() for name, entrant in self.bots.items()}
            data["skipped"] = [s.to_json() for s in self.skipped]
        if self.isolation:
            data["isolation"] = self.isolation
        data["dropped"] = self.dropped
        if self.restarts:
            data["restarts"] = self.restarts
        return data

    @classmethod
    def from_json(cls, data: Any) -> TournamentInfo:
        """The record behind `data`; a `RecordError` (a ValueError) naming what is wrong."""
        try:
            entrants = data.get("entrants")
            return cls(
                id=str(data["id"]),
                created=float(data.get("created", 0.0)),
                league=str(data.get("league", "")),
                ruleset=engine.Ruleset.from_mapping(data.get("ruleset", {})),
                games=int(data["games"]),
                jobs=int(data.get("jobs", 1)),
                move_time=float(data["move_time"]),
                seed_sha256=str(data.get("seed_sha256", "")),
                status=RunStatus(data.get("status", RunStatus.RUNNING.value)),
                run_id=str(data.get("run_id", "")),
                bots_dir=data.get("bots_dir"),
                server=bool(data.get("server", False)),
                table_size=data.get("table_size"),
                deals=Deals(data["deals"]) if "deals" in data else None,
                time_margin=float(data.get("time_margin", 0.0)),
                time_bank=float(data.get("time_bank", 0.0)),
                increment=float(data.get("increment", 0.0)),
                timeouts=bool(data.get("timeouts", True)),
                gauntlet=data.get("gauntlet"),
                ab=AbPlan(**data["ab"]) if data.get("ab") is not None else None,
                extra_bots=[str(p) for p in data.get("extra_bots", [])],
                concluded=data.get("concluded"),
                until_confident=data.get("until_confident"),
                until_confident_outcome=(
                    ConfidenceOutcome.from_json(data["until_confident_outcome"])
                    if data.get("until_confident_outcome") is not None
                    else None
                ),
                unplayed=[str(g) for g in data.get("unplayed", [])],
                seed=data.get("seed"),
                finished=data.get("finished"),
                entrants=tuple(entrants) if entrants is not None else None,
                bots={n: Entrant.from_json(b) for n, b in data.get("bots", {}).items()},
                skipped=[Skipped(s["name"], s["reason"]) for s in data.get("skipped", [])],
                isolation=list(data.get("isolation", [])),
                dropped=list(data.get("dropped", [])),
                restarts={str(n): int(k) for n, k in data.get("restarts", {}).items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError, engine.PerudoError) as error:
            raise RecordError(f"it does not describe a tournament ({error!r})") from None
