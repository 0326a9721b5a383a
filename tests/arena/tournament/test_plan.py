"""A run's plan: the keys of tournament.json it owns, written and read back as ever."""

from __future__ import annotations

import json

import engine
from arena.referee.clock.deadline import TimeControl
from arena.tournament.plan import AbPlan, RunPlan
from arena.tournament.schedule.round_robin import Deals

PLAN = RunPlan(
    league="/results/league.sqlite",
    ruleset=engine.preset("no-calza"),
    games=40,
    jobs=2,
    time=TimeControl(0.5, 2.0, 0.25, enforced=False, margin=0.025, lag_allowance=0.25),
    bots_dir="/bots",
    server=True,
    deals=Deals.DISJOINT,
    gauntlet="alpha",
    ab=AbPlan("alpha", "beta", 0.0, 40.0, 0.05, 0.05),
    extra_bots=("/elsewhere/alpha",),
    until_confident=0.9,
)


def test_a_plan_reads_back_as_written_its_time_control_field_by_field() -> None:
    data = json.loads(json.dumps(PLAN.to_json()))
    assert RunPlan.from_json(data) == PLAN
    assert {k: data[k] for k in ("move_time", "time_bank", "increment", "timeouts")} == {
        "move_time": 0.5,
        "time_bank": 2.0,
        "increment": 0.25,
        "timeouts": False,
    }
    assert (data["time_margin"], data["lag_allowance"]) == (0.025, 0.25)


def test_a_plan_without_its_optional_parts_writes_none_of_them_but_until_confident() -> None:
    bare = RunPlan("/l.sqlite", engine.Ruleset(), 10, 1, TimeControl(1.0), deals=None)
    data = bare.to_json()
    assert not {"deals", "gauntlet", "ab", "extra_bots"} & set(data)
    assert data["until_confident"] is None  # always written, as tournament.json always had it
    assert RunPlan.from_json(data) == bare  # no `deals`: a folder from before own deals


def test_seating_fixes_the_table_size_and_leaves_the_plan_it_was_made_from() -> None:
    seated = PLAN.seated(4)
    assert (seated.table_size, PLAN.table_size) == (4, None)
    assert RunPlan.from_json(seated.to_json()).table_size == 4
