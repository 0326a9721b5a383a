"""`arena run` refused before its first game leaves no tournament folder behind."""

from __future__ import annotations

import shutil
from pathlib import Path

from cli_harness import SAMPLE_BOTS, Cli


def test_a_run_refused_for_too_few_bots_leaves_no_folder(tmp_path: Path, cli: Cli) -> None:
    bots, out = tmp_path / "bots", tmp_path / "out"
    bots.mkdir()
    shutil.copy(SAMPLE_BOTS / "random_bot.py", bots)
    code, _, err = cli(
        "run", "--bots", str(bots), "--out", str(out), "--games", "2", "--sandbox", "off"
    )
    assert code == 1
    assert "fewer than two bots can play (random-bot)" in err
    assert list(out.glob("*/tournament.json")) == []
    assert [p.name for p in out.iterdir() if p.is_dir()] == []
