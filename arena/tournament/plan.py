"""What a run was set up to do, as its config made it: the record `tournament.json` keeps.

A `TournamentConfig` is everything the organiser asked, most of which (where to
write, how long to wait for a store, the caps on each bot) says how this process
plays and not what the run is. A resume, `arena verify` and the league read the
run from its folder, never from the options given again, so what fixes the run
(its rules, its games, its time control, who is seated where) is made once, by
`TournamentConfig.plan`, into this record, and kept with the run. The plan is
written into `tournament.json` key by key beside what the run then did, as the
arena has always spelled it, so that a folder written by any version reads.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import engine
from arena.records import Json
from arena.referee.clock.deadline import TimeControl
from arena.tournament.schedule.round_robin import Deals


@dataclass(frozen=True, slots=True)
class AbPlan:
    """An A/B test (`arena ab`): NEW and OLD by name, and the hypotheses of its sequential
    test, kept with the run so that a resume runs the same test."""

    new: str
    old: str
    elo0: float
    elo1: float
    alpha: float
    beta: float


@dataclass(frozen=True, slots=True)
class RunPlan:
    """A run as its config planned it: each field is read by a resume or by `arena verify`,
    and none changes once the folder is laid out, but the table size, fixed when play
    begins."""

    league: str
    """The league store as the run records it (`arena.store.recorded`: no password)."""
    ruleset: engine.Ruleset
    games: int
    jobs: int
    time: TimeControl
    """The time control the run plays by: its limits, margin and lag allowance."""
    bots_dir: str | None = None
    """None when only remote bots play (on a league server)."""
    server: bool = False
    table_size: int | None = None
    """As asked before the entrants are known (None: as many as fit, up to 6); then the size."""
    deals: Deals | None = Deals.OWN
    """None for a folder written before each game had dice of its own."""
    gauntlet: str | None = None
    """The bot seated at every table (`--gauntlet`), if any."""
    ab: AbPlan | None = None
    """The A/B test this run is (`arena ab`), if it is one: its schedule is then pairs."""
    extra_bots: tuple[str, ...] = ()
    """Bot entries from outside `bots_dir` that play too (an A/B test's NEW and OLD)."""
    until_confident: float | None = None
    """The level at which `--until-confident` stops the run, if it was asked for."""

    def seated(self, table_size: int) -> RunPlan:
        """The plan once play begins, its table size fixed."""
        return dataclasses.replace(self, table_size=table_size)

    def to_json(self) -> Json:
        """The plan's keys of `tournament.json`, as they have always been spelled."""
        data: Json = {
            "bots_dir": self.bots_dir,
            "league": self.league,
            "server": self.server,
            "ruleset": self.ruleset.to_mapping(),
            "table_size": self.table_size,
            "games": self.games,
            "jobs": self.jobs,
            **_time_json(self.time),
        }
        if self.deals is not None:
            data["deals"] = self.deals.value
        if self.gauntlet is not None:
            data["gauntlet"] = self.gauntlet
        if self.ab is not None:
            data["ab"] = dataclasses.asdict(self.ab)
        if self.extra_bots:
            data["extra_bots"] = list(self.extra_bots)
        data["until_confident"] = self.until_confident
        return data

    @classmethod
    def from_json(cls, data: Any) -> RunPlan:
        """The plan in a `tournament.json` (the whole record: the run's own keys are left to
        `TournamentInfo`); a key a folder from before it lacks reads as that run played.
        Raises what a malformed record makes it raise, for the caller to name."""
        return cls(
            league=str(data.get("league", "")),
            ruleset=engine.Ruleset.from_mapping(data.get("ruleset", {})),
            games=int(data["games"]),
            jobs=int(data.get("jobs", 1)),
            time=_time_from_json(data),
            bots_dir=data.get("bots_dir"),
            server=bool(data.get("server", False)),
            table_size=data.get("table_size"),
            deals=Deals(data["deals"]) if "deals" in data else None,
            gauntlet=data.get("gauntlet"),
            ab=AbPlan(**data["ab"]) if data.get("ab") is not None else None,
            extra_bots=tuple(str(p) for p in data.get("extra_bots", [])),
            until_confident=data.get("until_confident"),
        )


def _time_json(control: TimeControl) -> Json:
    """The time control as `tournament.json` has always spelled it, field by field."""
    return {
        "move_time": control.move_time,
        "time_margin": control.margin,
        "time_bank": control.bank,
        "increment": control.increment,
        "timeouts": control.enforced,
        "lag_allowance": control.lag_allowance,
    }


def _time_from_json(data: Any) -> TimeControl:
    """The time control of a `tournament.json` (a folder from before the bank, the margin or
    the lag allowance has none of it)."""
    return TimeControl(
        float(data["move_time"]),
        float(data.get("time_bank", 0.0)),
        float(data.get("increment", 0.0)),
        bool(data.get("timeouts", True)),
        margin=float(data.get("time_margin", 0.0)),
        lag_allowance=float(data.get("lag_allowance", 0.0)),
    )
