"""`arena run` waits for a bot as long as its manifest's `connect_timeout`, and says so when it
did not come in time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_harness import Cli
from late_loader import late_loader

STEADY = Path(__file__).parents[1] / "tournament_bots" / "steady.py"


def _night(cli: Cli, bots: Path, out: Path) -> tuple[int, str]:
    code, stdout, stderr = cli(
        *("run", "--bots", str(bots), "--games", "2", "--out", str(out)),
        # Generous for the steady bots (a loaded machine starts a sandboxed interpreter slowly);
        # the late loaders are held to their own manifests' windows.
        *("--connect-timeout", "30", "--name", "night"),
    )
    return code, stdout + stderr


@pytest.mark.slow
def test_a_bot_loading_past_the_default_plays_within_its_manifests_time(
    cli: Cli, tmp_path: Path
) -> None:
    bots = tmp_path / "bots"
    late_loader(bots, "late", load_s=35.0, connect_timeout=90)  # past --connect-timeout 30
    shutil.copy(STEADY, bots / "steady.py")
    code, said = _night(cli, bots, tmp_path / "out")
    assert code == 0, said
    info = json.loads((tmp_path / "out" / "night" / "tournament.json").read_text())
    assert sorted(info["entrants"]) == ["late", "steady"]
    games = (tmp_path / "out" / "night" / "games.jsonl").read_text().splitlines()
    assert len(games) == 2


@pytest.mark.slow
def test_a_bot_past_its_manifests_time_is_skipped_naming_that_limit(
    cli: Cli, tmp_path: Path
) -> None:
    bots = tmp_path / "bots"
    late_loader(bots, "later", load_s=120.0, connect_timeout=2)
    for name in ("steady", "also_steady"):
        shutil.copy(STEADY, bots / f"{name}.py")
    code, said = _night(cli, bots, tmp_path / "out")
    assert code == 0, said
    assert "later: did not connect within 2 s (connect_timeout in its bot.toml); stopped" in said
    info = json.loads((tmp_path / "out" / "night" / "tournament.json").read_text())
    assert sorted(info["entrants"]) == ["also-steady", "steady"]
