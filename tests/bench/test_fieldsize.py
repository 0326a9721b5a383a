"""`arena bench field`: a real night started, stopped with Ctrl-C, resumed, killed, looked at."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.fieldsize import largest_field, measure_field


@pytest.mark.slow
def test_a_small_night_starts_stops_on_ctrl_c_and_leaves_nothing_running(tmp_path: Path) -> None:
    said: list[str] = []
    figures = measure_field(4, tmp_path, said.append)
    assert figures.first_game_s is not None and figures.first_game_s > 0
    assert figures.stop_s is not None  # it exited on the one Ctrl-C
    assert figures.exit_code == 130  # as a program stopped by Ctrl-C does
    assert figures.games_on_disk >= 1
    assert figures.resumable
    assert figures.started_processes >= 4  # a launcher at least for each bot
    assert figures.alive_after_1s == 0
    # Resumed, then killed outright: the warden ends every process it had.
    assert figures.killed_processes >= 4
    assert figures.killed_alive_after_1s == 0
    assert figures.skipped == 0
    assert figures.mb_per_bot > 0
    assert largest_field(figures.mb_per_bot) >= 4
    assert said and said[0].startswith("4 bots: first game after")
