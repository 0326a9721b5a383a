"""TournamentConfig: every option declared once, and checked where a config is made."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path
from typing import Any

import pytest

from arena.bots.isolation.limits import ResourceLimits
from arena.referee.clock.deadline import LEAGUE_LAG_ALLOWANCE
from arena.tournament.config import OPTIONS, TournamentConfig
from arena.tournament.kinds import OptionError
from arena.tournament.plan import AbPlan, RunPlan
from arena.tournament.schedule.round_robin import Deals

NOT_OPTIONS = {
    "bots_dir": "each command's own --bots: a folder here for arena run and ab, on the "
    "server's machine for arena admin start; None on a server with only remote bots",
    "ab": "arena ab's plan, made from NEW, OLD and its test's flags (arena.ab.run.configure)",
    "extra_bots": "arena ab's NEW and OLD, from outside the field's folder",
}
"""The config's fields that are no option, and why."""


def test_every_field_of_the_config_is_a_declared_option_or_says_why_not() -> None:
    fields = {f.name for f in dataclasses.fields(TournamentConfig)}
    declared = {o.name for o in OPTIONS}
    assert sorted(fields - declared) == sorted(NOT_OPTIONS)
    assert declared <= fields


def test_each_declared_default_is_the_fields_and_passes_its_own_check() -> None:
    made = TournamentConfig(bots_dir=None)
    for declared in OPTIONS:
        assert getattr(made, declared.name) == declared.default(), declared.name
        assert declared.problem(declared.default()) is None, declared.name
        assert declared.commands, f"{declared.name} belongs to no command"
        assert declared.help() and "{" not in declared.help(), declared.name


def test_flags_are_unique_and_dashed_from_their_names() -> None:
    flags = [o.flag for o in OPTIONS]
    assert len(flags) == len(set(flags))
    renamed = {o.name: o.flag for o in OPTIONS if o.flag != "--" + o.name.replace("_", "-")}
    assert renamed == {"timeouts": "--no-timeout", "ruleset": "--rules"}


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"games": 0}, "--games: must be 1..100,000, not 0"),
        ({"table_size": 1}, "--table-size: must be 2..100, not 1"),
        ({"jobs": 0}, "--jobs: must be at least 1, not 0"),
        ({"move_time": 0.0}, "--move-time: 0 s is out of range: give more than 0"),
        ({"move_time": math.inf}, "--move-time: inf is out of range: give a finite number"),
        ({"time_bank": -1.0}, "--time-bank: -1 s is out of range: give 0 or more"),
        ({"time_margin": math.nan}, "--time-margin: nan is out of range"),
        ({"until_confident": 1.0}, "--until-confident: 1.0 is out of range"),
        ({"seed": bytes(8)}, "--seed: the seed needs at least 16 bytes (32 hex digits), got 8"),
        ({"name": "../up"}, "--name: '../up' is not a tournament name"),
        ({"gauntlet": " "}, "--gauntlet: ' ' is not a name"),
        ({"memory_mb": 100}, "--memory-mb: must be at least 256, not 100"),
        ({"recover": -1}, "--recover: must be at least 0, not -1"),
        ({"deals": "disjoint"}, "--deals: 'disjoint' is not a Deals"),
        ({"rebuild": 1}, "--rebuild: 1 is not true or false"),
        ({"games": True}, "--games: True is not a whole number"),
        ({"ruleset": "pub"}, "--rules: 'pub' is not a ruleset"),
        (
            {"gauntlet": "steady", "deals": Deals.DISJOINT},
            "--gauntlet seats its bot at every table, so no tables share no bot: "
            "use --deals own with it",
        ),
    ],
)
def test_a_config_that_cannot_be_is_refused_as_it_is_made_naming_the_flag(
    changes: dict[str, Any], said: str
) -> None:
    with pytest.raises(OptionError) as refused:
        TournamentConfig(bots_dir=None, **changes)
    assert str(refused.value).startswith(said), str(refused.value)
    base = TournamentConfig(bots_dir=None)
    with pytest.raises(OptionError):  # a copy with a change is made, and checked, as well
        dataclasses.replace(base, **changes)


def test_the_organisers_limits_are_four_options_the_rest_the_arenas() -> None:
    asked = {"memory_mb": 512, "cpu_s": 60, "build_timeout": 30.0, "scratch_mb": 5}
    made = TournamentConfig(bots_dir=Path("bots"), **asked)
    assert made.limits == dataclasses.replace(ResourceLimits(), **asked)


def test_the_lag_allowance_is_the_one_asked_for_or_the_venues() -> None:
    config = TournamentConfig(bots_dir=None)
    assert config.lag_allowance_on(server=False) == 0.0  # arena run: local bots, no network
    assert config.lag_allowance_on(server=True) == LEAGUE_LAG_ALLOWANCE
    asked = TournamentConfig(bots_dir=None, lag_allowance=0.0)
    assert asked.lag_allowance_on(server=True) == 0.0  # the organiser's word, even for none
    with pytest.raises(OptionError, match="--lag-allowance"):
        TournamentConfig(bots_dir=None, lag_allowance=-0.1)


def test_the_plan_is_what_fixes_the_run_its_paths_and_store_as_the_folder_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ab = AbPlan("new", "old", 0.0, 40.0, 0.05, 0.05)
    config = TournamentConfig(
        bots_dir=Path("bots"),
        games=30,
        table_size=3,
        jobs=1,
        move_time=0.25,
        deals=Deals.DISJOINT,
        until_confident=0.9,
        league="postgresql://arena:secret@db/league",
        ab=ab,
        extra_bots=(Path("elsewhere/new"),),
    )
    plan = config.plan(server=True)
    assert plan == RunPlan(
        league="postgresql://arena@db/league",  # no password in the folder
        ruleset=config.ruleset,
        games=30,
        jobs=1,
        time=config.time_control(server=True),  # with the league's lag allowance
        bots_dir=str(tmp_path / "bots"),  # a resume from elsewhere finds them
        server=True,
        table_size=3,
        deals=Deals.DISJOINT,
        ab=ab,
        extra_bots=(str(tmp_path / "elsewhere" / "new"),),
        until_confident=0.9,
    )
    assert plan.time.lag_allowance == LEAGUE_LAG_ALLOWANCE
    local = TournamentConfig(bots_dir=None, out=Path("out")).plan(server=False)
    assert (local.bots_dir, local.league, local.time.lag_allowance) == (
        None,
        str(tmp_path / "out" / "league.sqlite"),
        0.0,
    )
