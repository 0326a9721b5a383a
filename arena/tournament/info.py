"""What `tournament.json` says about a run: its plan (`arena.tournament.plan`), who plays,
how it stands.

One typed record, read and written only through `from_json` and `to_json`, so the
runner, a resume, `arena verify`, the league's rebuild and the command line all
read one shape. A record is a value that never changes: what a run does to it (the
entrants once the bots have connected, a game dropped, the status and the seed at
the end) is one of the methods here, each of which returns the record as the run
now stands, so that every change a run can make to its record is listed in this
module and no caller sets a field. Every field that a folder written before the
field existed lacks has a default that reads as that older run did.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import engine
from arena.records import Json, RecordError
from arena.store import identity_of
from arena.tournament.config import TournamentError
from arena.tournament.plan import RunPlan
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


@dataclass(frozen=True, slots=True)
class TournamentInfo:
    id: str
    created: float
    plan: RunPlan
    """What the run was set up to do, as its config made it (`TournamentConfig.plan`)."""
    seed_sha256: str
    status: RunStatus = RunStatus.RUNNING
    run_id: str = ""
    """Made at random when the folder is laid out: which run of its name this is, for the
    league (empty in a folder from before; `identity` then reads it from the seed's
    commitment and `created`)."""
    until_confident_outcome: ConfidenceOutcome | None = None
    unplayed: tuple[str, ...] = ()
    """Games planned but not needed: `--until-confident` knew the ranking without them."""
    concluded: str | None = None
    """Why the run ended before its schedule did (an A/B test's verdict), if it did."""
    seed: str | None = None
    """The seed in hex, once the run has finished; secret until then."""
    finished: float | None = None
    entrants: tuple[str, ...] | None = None
    """None until the bots have connected and play can begin."""
    bots: Mapping[str, Entrant] = field(default_factory=dict)
    skipped: tuple[Skipped, ...] = ()
    isolation: tuple[str, ...] = ()
    """How far the local bots were kept apart, in the lines the run began with."""
    dropped: tuple[str, ...] = ()
    """Games given up on because a remote bot did not come back."""
    restarts: Mapping[str, int] = field(default_factory=dict)
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
        if self.plan.table_size is None:
            raise TournamentError(f"tournament {self.id} never began play: it has no table size")
        return self.plan.table_size

    # What a run does to its record: each returns the record as the run now stands.

    def with_isolation(self, lines: Sequence[str]) -> TournamentInfo:
        """The run's local bots are kept apart as `lines` say (said when it begins)."""
        return dataclasses.replace(self, isolation=tuple(lines))

    def with_entrants(
        self,
        entrants: Sequence[str],
        table_size: int,
        bots: Mapping[str, Entrant],
        skipped: Sequence[Skipped],
    ) -> TournamentInfo:
        """Play begins: the entrants and the table size are fixed, each one's files known,
        and the bots that will not play kept with why."""
        return dataclasses.replace(
            self,
            plan=self.plan.seated(table_size),
            entrants=tuple(entrants),
            bots=dict(bots),
            skipped=tuple(skipped),
        )

    def with_dropped(self, games: Iterable[str]) -> TournamentInfo:
        """The games given up on (a remote bot that did not come back, or a run concluded
        before them), after those given up on before."""
        return dataclasses.replace(self, dropped=(*self.dropped, *games))

    def with_conclusion(self, why: str) -> TournamentInfo:
        """The run ends before its schedule does, for `why` (an A/B test's verdict)."""
        return dataclasses.replace(self, concluded=why)

    def with_restarts(self, restarts: Mapping[str, int]) -> TournamentInfo:
        """The bots restarted after a crash (`--recover`), and how often, all runs counted."""
        return dataclasses.replace(self, restarts=dict(restarts))

    def with_confidence_outcome(self, outcome: ConfidenceOutcome) -> TournamentInfo:
        """How an `--until-confident` run ended."""
        return dataclasses.replace(self, until_confident_outcome=outcome)

    def as_finished(self, seed: str, at: float, unplayed: Sequence[str] | None) -> TournamentInfo:
        """The run is over, every game on record: its seed revealed, and (with
        `--until-confident`) the planned games it did not need."""
        finished = dataclasses.replace(self, status=RunStatus.FINISHED, seed=seed, finished=at)
        if unplayed is None:
            return finished
        return dataclasses.replace(finished, unplayed=tuple(unplayed))

    def as_interrupted(self) -> TournamentInfo:
        """The run stopped before its end: a resume takes it up, so its seed stays secret."""
        return dataclasses.replace(self, status=RunStatus.INTERRUPTED, seed=None)

    def to_json(self) -> Json:
        data: Json = {
            "id": self.id,
            "status": self.status.value,
            "created": self.created,
            **self.plan.to_json(),
            "seed_sha256": self.seed_sha256,
            "seed": self.seed,
        }
        if self.run_id:
            data["run_id"] = self.run_id
        if self.concluded is not None:
            data["concluded"] = self.concluded
        if self.until_confident_outcome is not None:
            data["until_confident_outcome"] = self.until_confident_outcome.to_json()
        if self.unplayed:
            data["unplayed"] = list(self.unplayed)
        if self.finished is not None:
            data["finished"] = self.finished
        if self.entrants is not None:
            data["entrants"] = list(self.entrants)
            data["bots"] = {name: entrant.to_json() for name, entrant in self.bots.items()}
            data["skipped"] = [s.to_json() for s in self.skipped]
        if self.isolation:
            data["isolation"] = list(self.isolation)
        data["dropped"] = list(self.dropped)
        if self.restarts:
            data["restarts"] = dict(self.restarts)
        return data

    @classmethod
    def from_json(cls, data: Any) -> TournamentInfo:
        """The record behind `data`; a `RecordError` (a ValueError) naming what is wrong."""
        try:
            entrants = data.get("entrants")
            return cls(
                id=str(data["id"]),
                created=float(data.get("created", 0.0)),
                plan=RunPlan.from_json(data),
                seed_sha256=str(data.get("seed_sha256", "")),
                status=RunStatus(data.get("status", RunStatus.RUNNING.value)),
                run_id=str(data.get("run_id", "")),
                concluded=data.get("concluded"),
                until_confident_outcome=(
                    ConfidenceOutcome.from_json(data["until_confident_outcome"])
                    if data.get("until_confident_outcome") is not None
                    else None
                ),
                unplayed=tuple(str(g) for g in data.get("unplayed", [])),
                seed=data.get("seed"),
                finished=data.get("finished"),
                entrants=tuple(entrants) if entrants is not None else None,
                bots={n: Entrant.from_json(b) for n, b in data.get("bots", {}).items()},
                skipped=tuple(Skipped(s["name"], s["reason"]) for s in data.get("skipped", [])),
                isolation=tuple(data.get("isolation", [])),
                dropped=tuple(data.get("dropped", [])),
                restarts={str(n): int(k) for n, k in data.get("restarts", {}).items()},
            )
        except (KeyError, TypeError, ValueError, AttributeError, engine.PerudoError) as error:
            raise RecordError(f"it does not describe a tournament ({error!r})") from None
