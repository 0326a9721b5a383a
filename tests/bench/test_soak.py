"""`arena bench soak`: its flags refused at once when wrong, and (slow) the real thing, a
minute of `arena serve --ladder` with three sample bots submitted, killed at half time."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from arena.cli.main import main

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
THREE = ("random_bot.py", "binomial_bot.py", "strong_bot.py")


def test_a_soak_of_no_minutes_is_refused_as_it_is_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "soak", "nan"])
    assert exited.value.code == 2
    assert "'nan' is not a number of minutes above 0" in capsys.readouterr().err


def test_too_few_bots_for_a_table_is_one_line_and_makes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    for script in THREE[:2]:
        shutil.copy(SAMPLE_BOTS / script, bots / script)
    (bots / "README.md").write_text("not a bot\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert main(["bench", "soak", "1", "--bots", str(bots)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == f"arena bench: {bots} holds 2 bots: a table of 3 needs more"
    assert list(scratch.iterdir()) == []


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_a_minute_of_the_ladder_killed_at_half_time_passes(tmp_path: Path) -> None:
    for script in THREE:
        shutil.copy(SAMPLE_BOTS / script, tmp_path / script)
    command = [sys.executable, "-m", "arena.cli.main", "bench", "soak", "1", "--kill"]
    done = subprocess.run(
        [*command, "--bots", str(tmp_path), "--json"],
        capture_output=True,
        text=True,
        timeout=900,  # a minute of play; the rest is start-up and checks, on a busy machine
        check=False,
    )
    print(done.stderr)
    assert done.returncode == 0, done.stdout + done.stderr
    figures = json.loads(done.stdout)
    print(json.dumps({k: v for k, v in figures.items() if k != "samples"}, indent=2))
    assert figures["passed"] is True and figures["findings"] == []
    assert figures["bots"] == ["binomial-bot", "random-bot", "strong-bot"]
    assert figures["rejected"] == {}
    assert (figures["table_size"], figures["jobs"]) == (3, 2)
    assert figures["minutes"] >= 1.0
    assert figures["games"] > 0 and figures["faults"] == {}
    assert figures["longest_gap_s"] <= figures["hang_limit_s"]
    assert figures["journaled"] == figures["stored"] >= figures["games"]
    assert figures["doubled"] == []
    assert "agrees with its folders" in figures["league_check"]
    kill = figures["kill"]
    assert 0 < kill["journaled"] < figures["journaled"] and kill["lost"] == []
    assert kill["orphans"] == 0
    assert figures["stopped"].startswith("exit 0 in ")
    for memory in (figures["server_rss"], figures["tree_rss"]):
        assert 0 < memory["first_tenth_mib"] <= memory["max_mib"]
        assert memory["growth"] <= figures["growth_bound"]
    samples = figures["samples"]
    assert len(samples) >= 10
    assert [s[0] for s in samples] == sorted(s[0] for s in samples)
    assert figures["sample_fields"][1:5] == [
        "server_mib",
        "server_peak_mib",
        "tree_mib",
        "tree_peak_mib",
    ]
    assert all(0 < s[1] <= s[2] and s[1] <= s[3] <= s[4] for s in samples)
