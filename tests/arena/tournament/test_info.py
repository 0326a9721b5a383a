"""tournament.json as a typed record: one shape written and read back, older folders kept."""

from __future__ import annotations

import dataclasses
import json

import pytest

import engine
from arena.records import RecordError
from arena.tournament.config import AbPlan
from arena.tournament.info import ConfidenceOutcome, Entrant, RunStatus, Skipped, TournamentInfo
from arena.tournament.schedule.round_robin import Deals


def _info() -> TournamentInfo:
    return TournamentInfo(
        id="night",
        created=1_700_000_000.5,
        league="/results/league.sqlite",
        ruleset=engine.preset("no-calza"),
        games=40,
        jobs=2,
        move_time=0.5,
        seed_sha256="ab" * 32,
        bots_dir="/bots",
        table_size=4,
        deals=Deals.DISJOINT,
    )


def test_a_run_in_every_state_reads_back_as_written() -> None:
    info = _info()
    assert TournamentInfo.from_json(json.loads(json.dumps(info.to_json()))) == info
    info.entrants = ("alpha", "beta", "gamma", "delta")
    info.bots = {n: Entrant(f"/bots/{n}", "cd" * 32) for n in info.entrants[:3]}
    info.bots["delta"] = Entrant(remote=True)
    info.skipped = [Skipped("broken", "its build failed: exit 1")]
    info.isolation = ["sandbox: bubblewrap", "memory: cgroup"]
    info.dropped = ["game-7"]
    info.restarts = {"alpha": 1}
    info.gauntlet, info.extra_bots = "alpha", ["/elsewhere/alpha"]
    info.ab = AbPlan("alpha", "beta", 0.0, 40.0, 0.05, 0.05)
    info.until_confident, info.unplayed = 0.9, ["u001-t000-r0"]
    info.until_confident_outcome = ConfidenceOutcome(0.9, "budget", 40, 40, [("beta", "gamma")])
    info.status, info.seed, info.finished = RunStatus.FINISHED, "ef" * 32, 1_700_000_100.0
    info.run_id = "5e" * 16
    again = TournamentInfo.from_json(json.loads(json.dumps(info.to_json())))
    assert again == info
    assert again.players() == info.entrants and again.size() == 4


def test_a_folder_from_before_own_deals_reads_as_one() -> None:
    data = _info().to_json()
    del data["deals"], data["time_margin"], data["dropped"]
    old = TournamentInfo.from_json(data)
    assert old.deals is None and old.time_margin == 0.0 and old.dropped == []
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
    info = _info()
    info.entrants, info.restarts, info.isolation = ("a", "b"), {"a": 2}, ["x"]
    info.finished, info.gauntlet, info.concluded = 1.0, "a", "NEW is stronger"
    info.ab, info.extra_bots = AbPlan("a", "b", 0.0, 40.0, 0.05, 0.05), ["/elsewhere/a"]
    info.until_confident, info.unplayed = 0.95, ["u001-t000-r0"]
    info.until_confident_outcome = ConfidenceOutcome(0.95, "separated", 18, 200, [])
    info.run_id = "5e" * 16
    written = set(info.to_json())
    assert {f.name for f in dataclasses.fields(TournamentInfo)} == written


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
    assert info.ruleset == engine.Ruleset.from_mapping(
        {"calza": "off", "palifico_face_change": face_change}
    )
    written = info.to_json()["ruleset"]
    assert written["palifico_face_change"] == face_change
    assert "palifico_one_die_may_change_face" not in written  # only the new field is written
