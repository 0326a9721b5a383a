"""`--jobs` defaults to what the machine can run, and more is refused unless forced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots.run import capacity
from arena.cli import options
from arena.cli.main import _parser, main
from arena.tournament.config import TournamentConfig
from arena.tournament.options import Command


def _config(*flags: str) -> TournamentConfig:
    """`arena run`'s config for these flags, checked against this machine's cores as the run
    checks it."""
    config = options.config(
        _parser().parse_args(["run", "--bots", ".", *flags]), Command.RUN, bots_dir=Path(".")
    )
    config.check_cores()
    return config


def test_the_default_is_one_game_per_usable_core() -> None:
    cores = len(os.sched_getaffinity(0))
    assert capacity.usable_cores() <= cores
    assert _config().jobs == capacity.usable_cores() == capacity.default_jobs()


def test_a_cgroup_cpu_quota_caps_the_cores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    quota = tmp_path / "cpu.max"
    monkeypatch.setattr(capacity, "CPU_MAX", quota)
    quota.write_text("50000 100000\n")  # half a core: still one game
    assert capacity.usable_cores() == 1
    quota.write_text("max 100000\n")
    assert capacity.usable_cores() == len(os.sched_getaffinity(0))


def test_more_jobs_than_cores_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `arena run`'s main() in this process: the refusal comes before any bot."""
    too_many = capacity.usable_cores() + 1
    out = tmp_path / "results"
    code = main(["run", "--bots", str(tmp_path), "--out", str(out), "--jobs", str(too_many)])
    err = capsys.readouterr().err
    assert code == 1
    assert f"--jobs {too_many} is more games at once than" in err
    assert "--force-jobs" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_force_jobs_allows_more() -> None:
    too_many = capacity.usable_cores() * 4
    assert _config("--jobs", str(too_many), "--force-jobs").jobs == too_many
    with pytest.raises(capacity.JobsError, match="--force-jobs"):
        capacity.check_jobs(too_many)


def test_the_time_margin_is_kept_and_checked() -> None:
    assert _config("--time-margin", "0.03").time_margin == 0.03
    with pytest.raises(SystemExit):  # refused as the command line is read: one line, exit 2
        _parser().parse_args(["run", "--bots", ".", "--time-margin", "nan"])
