"""`arena admin start` takes the fairness flags and the rules of `arena run`, and the server
applies its cap."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from cli_harness import SEED, Cli, night_config, one_line, read_info, start_serve

from arena.bots.run.capacity import usable_cores
from engine import FaultPenalty, Opener, PalificoFaceChange, Ruleset, preset

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"


def test_admin_start_refuses_more_jobs_than_the_servers_cores_unless_forced(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league = tmp_path / "league" / "league.sqlite"
    serve = start_serve(league, tmp_path / "results", tmp_path / "serve.log", processes)
    too_many = str(usable_cores() + 1)
    code, _, err = cli("admin", "start", *serve.admin, "--jobs", too_many, "--name", "n")
    assert code == 1
    assert f"FAILED_PRECONDITION: --jobs {too_many} is more games at once" in one_line(err)
    assert "add --force-jobs to run it anyway" in one_line(err)
    assert "Traceback" not in err
    forced = ("--jobs", too_many, "--force-jobs", "--time-margin", "0.1", "--name", "n")
    code, _, err = cli("admin", "start", *serve.admin, *forced)
    assert code == 1  # past the cap: the next check is that nobody is connected
    assert "fewer than two bots can play (none connected)" in one_line(err)
    assert not (tmp_path / "results" / "n").exists()


def test_admin_start_reads_the_time_margin_like_arena_run(cli: Cli) -> None:
    for bad, why in (
        ("nan", "nan is out of range: give a finite number of seconds"),
        ("soon", "'soon' is not a number of seconds"),
    ):
        code, out, err = cli.exits("admin", "start", "--time-margin", bad)
        assert code == 2
        assert f"argument --time-margin: {why}" in one_line(err)
        assert out == "" and "Traceback" not in err


RULES = [
    *("--rules", "no-heads-up-palifico", "--rule", "calza_max_dice=null"),
    *("--dice", "4", "--opener", "seat0", "--palifico-face-change", "others"),
    *("--no-palifico-once", "--fault-penalty", "lose_die"),
]
"""A preset, a rule taken back, and every other rule's flag."""
MEANT = replace(
    preset("no-heads-up-palifico"),
    calza_max_dice=None,  # the preset's 5 taken back
    dice_per_player=4,
    opener=Opener.SEAT0,
    palifico_face_change=PalificoFaceChange.OTHERS,
    palifico_once=False,
    fault_penalty=FaultPenalty.LOSE_DIE,
)


def test_admin_start_gives_the_server_the_ruleset_field_by_field(tmp_path: Path) -> None:
    """The fast twin of the night below: the ruleset a real league server configures its
    night with (cli_harness.night_config)."""
    config, _ = night_config(tmp_path, "--bots", str(TOURNAMENT_BOTS), *RULES)
    assert config.ruleset == MEANT


@pytest.mark.slow  # fast: test_admin_start_gives_the_server_the_ruleset_field_by_field
def test_admin_start_plays_the_ruleset_it_was_given_field_by_field(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    serve = start_serve(league, results, tmp_path / "serve.log", processes)
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(TOURNAMENT_BOTS / f"{name}.py", bots / f"{name}.py")
    code, out, err = cli(
        *("admin", "start", *serve.admin, "--bots", str(bots), "--name", "house"),
        *("--seed", SEED, "--games", "2", "--jobs", "1", "--sandbox", "off", *RULES),
    )
    assert code == 0, out + err
    assert f"Results: {results / 'house'} (finished)" in one_line(out)
    assert Ruleset.from_mapping(read_info(results / "house")["ruleset"]) == MEANT
