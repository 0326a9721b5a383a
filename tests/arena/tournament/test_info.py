"""tournament.json as a typed record: one shape written and read back, older folders kept."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

import engine
from arena.records import RecordError
from arena.referee.clock.deadline import TimeControl
from arena.tournament.info import ConfidenceOutcome, Entrant, RunStatus, Skipped, TournamentInfo
from arena.tournament.plan import AbPlan, RunPlan
from arena.tournament.schedule.round_robin import Deals

BEFORE_THE_PLAN = Path(__file__).parent / "tournament_before_the_plan.json"
"""A finished run's tournament.json, every key set, as the arena wrote it before its plan was a
record of its own (commit e41ddad)."""


def _info(**planned: Any) -> TournamentInfo:
    """A run laid out and not begun; `planned` changes fields of its plan."""
    plan = RunPlan(
        league="/results/league.sqlite",
        ruleset=engine.preset("no-calza"),
        games=40,
        jobs=2,
        time=TimeControl(0.5),
        bots_dir="/bots",
        table_size=4,
        deals=Deals.DISJOINT,
    )
    return TournamentInfo(
        id="night",
        created=1_700_000_000.5,
        plan=dataclasses.replace(plan, **planned),
        seed_sha256="ab" * 32,
    )


def test_a_run_in_every_state_reads_back_as_written() -> None:
    info = _info()
    assert TournamentInfo.from_json(json.loads(json.dumps(info.to_json()))) == info
    entrants = ("alpha", "beta", "gamma", "delta")
    bots = {n: Entrant(f"/bots/{n}", "cd" * 32) for n in entrants[:3]}
    bots["delta"] = Entrant(remote=True)
    info = (
        dataclasses.replace(
            _info(
                gauntlet="alpha",
                extra_bots=("/elsewhere/alpha",),
                ab=AbPlan("alpha", "beta", 0.0, 40.0, 0.05, 0.05),
                until_confident=0.9,
            ),
            run_id="5e" * 16,
        )
        .with_isolation(["sandbox: bubblewrap", "memory: cgroup"])
        .with_entrants(entrants, 4, bots, [Skipped("broken", "its build failed: exit 1")])
        .with_dropped(["game-7"])
        .with_restarts({"alpha": 1})
        .with_confidence_outcome(ConfidenceOutcome(0.9, "budget", 40, 40, [("beta", "gamma")]))
        .as_finished("ef" * 32, 1_700_000_100.0, ["u001-t000-r0"])
    )
    assert info.status is RunStatus.FINISHED
    again = TournamentInfo.from_json(json.loads(json.dumps(info.to_json())))
    assert again == info
    assert again.players() == entrants and again.size() == 4


def test_each_change_is_a_new_record_and_leaves_the_one_it_was_made_from() -> None:
    before = _info().with_entrants(["a", "b"], 2, {}, [])
    dropped = before.with_dropped(["g1"]).with_dropped(["g2", "g3"])
    assert dropped.dropped == ("g1", "g2", "g3") and before.dropped == ()
    concluded = dropped.with_conclusion("NEW is stronger")
    assert (concluded.concluded, dropped.concluded) == ("NEW is stronger", None)
    finished = concluded.as_finished("ef" * 32, 5.0, None)
    assert (finished.status, finished.seed, finished.finished) == (
        RunStatus.FINISHED,
        "ef" * 32,
        5.0,
    )
    assert finished.unplayed == () and concluded.status is RunStatus.RUNNING
    # Closing the books failed after all: the run is interrupted, and its seed stays secret.
    stopped = finished.as_interrupted()
    assert (stopped.status, stopped.seed) == (RunStatus.INTERRUPTED, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        stopped.status = RunStatus.FINISHED  # type: ignore[misc]


def test_a_folder_from_before_own_deals_reads_as_one() -> None:
    data = _info().to_json()
    del data["deals"], data["time_margin"], data["dropped"]
    old = TournamentInfo.from_json(data)
    assert old.plan.deals is None and old.plan.time.margin == 0.0 and old.dropped == ()
    assert "deals" not in old.to_json()  # written back, it still says what it was


def test_play_not_begun_has_no_entrants_to_hand_out() -> None:
    info = _info()
    assert not info.played
    with pytest.raises(Exception, match="never began play"):
        info.players()
    assert "entrants" not in info.to_json()


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d.pop("id"),
        lambda d: d.update(games="many"),
        lambda d: d.update(status="paused"),
        lambda d: d.update(deals="shared"),
        lambda d: d.update(ruleset={"calza": "sometimes"}),
    ],
)
def test_a_file_that_is_not_a_tournament_is_a_record_error(change: object) -> None:
    data = _info().to_json()
    change(data)  # type: ignore[operator]
    with pytest.raises(RecordError, match="does not describe a tournament"):
        TournamentInfo.from_json(data)


def test_every_field_is_written() -> None:
    info = (
        dataclasses.replace(
            _info(
                gauntlet="a",
                ab=AbPlan("a", "b", 0.0, 40.0, 0.05, 0.05),
                extra_bots=("/elsewhere/a",),
                until_confident=0.95,
            ),
            run_id="5e" * 16,
        )
        .with_isolation(["x"])
        .with_entrants(["a", "b"], 2, {}, [])
        .with_restarts({"a": 2})
        .with_conclusion("NEW is stronger")
        .with_confidence_outcome(ConfidenceOutcome(0.95, "separated", 18, 200, []))
        .as_finished("ef" * 32, 1.0, ["u001-t000-r0"])
    )
    written = set(info.to_json())
    fields = {f.name for f in dataclasses.fields(TournamentInfo)} - {"plan"}
    fields |= {f.name for f in dataclasses.fields(RunPlan)} - {"time"}  # the plan's, beside them
    controls = {"move_time", "time_bank", "increment", "timeouts", "time_margin", "lag_allowance"}
    assert fields | controls == written  # the time control, field by field, as it always was


def test_a_run_is_known_by_its_run_id_and_one_from_before_by_its_seed_and_start() -> None:
    info = _info()
    assert "run_id" not in info.to_json()  # a folder from before run ids
    same = TournamentInfo.from_json(info.to_json() | {"status": "interrupted", "jobs": 1})
    assert same.identity == info.identity  # what changes as it runs does not change it
    for other in (
        dataclasses.replace(info, seed_sha256="cd" * 32),
        dataclasses.replace(info, created=info.created + 1),
        dataclasses.replace(info, run_id="5e" * 16),
    ):
        assert other.identity != info.identity
    new = dataclasses.replace(info, run_id="5e" * 16)
    assert TournamentInfo.from_json(new.to_json()).identity == "5e" * 16


@pytest.mark.parametrize(("old", "face_change"), [(True, "all"), (False, "none")])
def test_a_folder_from_before_the_variant_fields_keeps_its_rules(
    old: bool, face_change: str
) -> None:
    data = _info().to_json()
    data["ruleset"] = {  # no-calza, as tournament.json wrote it before the variant fields
        "dice_per_player": 5,
        "opener": "rolloff",
        "lower_face_with_higher_count": True,
        "calza": "off",
        "palifico": True,
        "palifico_once": True,
        "palifico_one_die_may_change_face": old,
        "fault_penalty": "eliminate",
    }
    info = TournamentInfo.from_json(json.loads(json.dumps(data)))
    assert info.plan.ruleset == engine.Ruleset.from_mapping(
        {"calza": "off", "palifico_face_change": face_change}
    )
    written = info.to_json()["ruleset"]
    assert written["palifico_face_change"] == face_change
    assert "palifico_one_die_may_change_face" not in written  # only the new field is written


def test_the_time_control_is_the_one_the_run_was_given_and_none_before_banks() -> None:
    control = TimeControl(0.5, 2.0, 0.25, enforced=False, margin=0.025, lag_allowance=0.25)
    info = _info(time=control)
    assert TournamentInfo.from_json(json.loads(json.dumps(info.to_json()))).plan.time == control
    data = _info().to_json()
    del data["time_bank"], data["increment"], data["timeouts"]  # a folder from before banks
    assert TournamentInfo.from_json(data).plan.time == TimeControl(0.5)


def test_the_lag_allowance_is_kept_and_a_folder_from_before_it_had_none() -> None:
    info = _info(time=TimeControl(0.5, lag_allowance=0.25))
    data = json.loads(json.dumps(info.to_json()))
    assert data["lag_allowance"] == 0.25  # tournament.json spells the control as it always has
    assert TournamentInfo.from_json(data).plan.time.lag_allowance == 0.25
    del data["lag_allowance"]  # a folder from before the allowance: no link was credited
    assert TournamentInfo.from_json(data).plan.time.lag_allowance == 0.0


def test_a_folder_written_before_the_plan_reads_and_is_written_back_key_for_key() -> None:
    data = json.loads(BEFORE_THE_PLAN.read_text())
    info = TournamentInfo.from_json(data)
    assert info.plan == RunPlan(
        league="/results/league.sqlite",
        ruleset=engine.preset("no-calza"),
        games=40,
        jobs=2,
        time=TimeControl(0.5, 3.0, 0.1, margin=0.05, lag_allowance=0.2),
        bots_dir="/bots",
        server=True,
        table_size=2,
        deals=Deals.DISJOINT,
        gauntlet="alpha",
        ab=AbPlan("alpha", "beta", 0.0, 40.0, 0.05, 0.05),
        extra_bots=("/elsewhere/alpha",),
        until_confident=0.9,
    )
    assert (info.status, info.run_id, info.players(), info.size()) == (
        RunStatus.FINISHED,
        "5e" * 16,
        ("alpha", "beta"),
        2,
    )
    assert info.to_json() == data  # a resume or a rebuild writes it back as it was
    assert info.identity == "5e" * 16
