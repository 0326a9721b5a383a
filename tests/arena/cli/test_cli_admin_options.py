"""`arena admin start` takes `arena run`'s options (--recover, --rebuild, --gauntlet,
--no-timeout, --until-confident, the limits ...) and ends on `arena run`'s leaderboard:
through a real `arena serve` and its local bots."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_harness import SEED, Cli, night_config, one_line, read_info, read_lines, start_serve

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"

CRASHY = """\
import os
from pathlib import Path

from arena.kit import PASS, run
from engine import DUDO, Bid

LIVES = Path({lives!r})
life = len(list(LIVES.iterdir()))
(LIVES / str(os.getpid())).touch()


def act(obs):
    if life < 1:
        os._exit(1)  # its first request, in its first life only
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo:
        return DUDO
    face = max(f for f in range(1, 7) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
"""

BUILT = """\
name = "built"
run = "python bot.py"
build = "python build.py"
"""


def _bots(tmp_path: Path) -> Path:
    bots, lives = tmp_path / "bots", tmp_path / "lives"
    bots.mkdir()
    lives.mkdir()
    (bots / "crashy.py").write_text(CRASHY.format(lives=str(lives)))
    shutil.copy(TOURNAMENT_BOTS / "steady.py", bots / "steady.py")
    built = bots / "built"
    built.mkdir()
    (built / "bot.toml").write_text(BUILT)
    (built / "build.py").write_text("print('building')\n")
    shutil.copy(TOURNAMENT_BOTS / "meek.py", built / "bot.py")
    return bots


def _start(cli: Cli, admin: list[str], bots: Path, name: str, *extra: str) -> str:
    """`arena admin start` of a small night: tables of two, one game at a time, the bots
    unsandboxed (the crashing bot counts its lives in a folder outside its own). The command
    runs in this process (`main()`), the server in its own."""
    code, out, err = cli(
        *("admin", "start", *admin, "--bots", str(bots), "--name", name),
        *("--seed", SEED, "--table-size", "2", "--jobs", "1", "--move-time", "5"),
        *("--sandbox", "off", *extra),
    )
    assert code == 0, out + err
    return one_line(out)


@pytest.mark.slow
def test_admin_start_recovers_rebuilds_runs_a_gauntlet_and_shows_the_ranks(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    serve = start_serve(league, results, tmp_path / "serve.log", processes)
    bots = _bots(tmp_path)

    said = _start(
        cli, serve.admin, bots, "first", "--games", "4", "--recover", "2", "--gauntlet", "steady"
    )
    folder = results / "first"
    info = read_info(folder)
    assert info["status"] == "finished" and info["gauntlet"] == "steady"
    lines = read_lines(folder)
    assert lines and all("steady" in line["players"] for line in lines)
    # The crash is a fault in its game; the bot is started again and plays on.
    assert "crashy: its process exited with code 1" in said
    assert "restarting it (restart 1 of 2)" in said
    assert info["restarts"] == {"crashy": 1}
    crashed = [line for line in lines if line["faults"]]
    assert len(crashed) == 1 and "crashy" in crashed[0]["players"]
    assert any("crashy" in line["players"] and not line["faults"] for line in lines)
    # arena run's leaderboard: four games are too few for a rank range or P(rank 1), and
    # the line under it says so rather than print a bootstrap's artefacts.
    assert "# bot rating mu sigma games wins win% place faults ms" in said
    assert "No rank range, P(rank 1) nor separation yet" in said
    assert "fewer than the 10 a bootstrap needs" in said

    # Unchanged since its build: not built again, unless --rebuild.
    again = _start(cli, serve.admin, bots, "second", "--games", "2")
    assert "built: unchanged since its last build: not rebuilt" in again
    rebuilt = _start(cli, serve.admin, bots, "third", "--games", "2", "--rebuild")
    assert "not rebuilt" not in rebuilt and "built built" in rebuilt


def test_admin_start_refuses_a_gauntlet_with_disjoint_deals_as_arena_run_does(
    tmp_path: Path, cli: Cli
) -> None:
    token = tmp_path / "admin.token"
    token.write_text("whatever\n")
    code, _, err = cli.exits(
        *("admin", "start", "--token-file", str(token), "--admin", "127.0.0.1:9"),
        *("--gauntlet", "steady", "--deals", "disjoint"),
    )
    assert code == 1
    assert "--gauntlet seats its bot at every table" in one_line(err)
    assert "use --deals own with it" in one_line(err)


def test_admin_start_s_options_are_the_night_a_real_server_configures(tmp_path: Path) -> None:
    """The fast twin of the night below (and of test_cli_store_patience's): the request
    `arena admin start` makes of its command line is the config a real league server makes
    its night of (cli_harness.night_config). What a run does with the config is the
    tournament's tests' (a locked store past its patience: test_league_writes)."""
    config, said = night_config(
        tmp_path,
        *("--bots", str(TOURNAMENT_BOTS), "--no-timeout", "--until-confident", "0.9"),
        *("--store-patience", "0.4", "--memory-mb", "1024", "--cpu-s", "77"),
        *("--scratch-mb", "5", "--connect-timeout", "30"),
    )
    assert "TIMEOUTS ARE OFF (--no-timeout)" in said
    assert (config.timeouts, config.until_confident) == (False, 0.9)
    assert (config.store_patience, config.connect_timeout) == (0.4, 30.0)
    limits = config.limits.describe((), sandboxed=False)
    assert "memory 1024 MiB" in limits and "CPU 77 s" in limits, limits
    assert "files up to 5 MiB each" in limits, limits


@pytest.mark.slow  # fast: test_admin_start_s_options_are_the_night_a_real_server_configures
def test_admin_start_carries_the_options_arena_run_had_alone_to_the_server(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    """--no-timeout, --until-confident and the limits on local bots, once `arena run`'s only."""
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    serve = start_serve(league, results, tmp_path / "serve.log", processes)
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(TOURNAMENT_BOTS / f"{name}.py", bots / f"{name}.py")
    said = _start(
        cli,
        serve.admin,
        bots,
        "night",
        *("--games", "2", "--no-timeout", "--until-confident", "0.9"),
        *("--memory-mb", "1024", "--cpu-s", "77", "--scratch-mb", "5", "--connect-timeout", "30"),
    )
    assert "TIMEOUTS ARE OFF (--no-timeout)" in said
    info = read_info(results / "night")
    assert info["status"] == "finished"
    assert (info["timeouts"], info["until_confident"]) == (False, 0.9)
    limits = " ".join(line for line in info["isolation"] if "limits per bot" in line)
    assert "memory 1024 MiB" in limits and "CPU 77 s" in limits, info["isolation"]
    assert "files up to 5 MiB each" in limits, info["isolation"]  # --sandbox off: no /tmp
