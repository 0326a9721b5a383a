"""`arena bench web` measures both sides by turns, and its pages really are sent the games."""

from __future__ import annotations

import pytest

from bench.web_pages import measure


@pytest.mark.slow
def test_the_benchmark_measures_with_and_without_pages() -> None:
    said: list[str] = []
    speed = measure(clients=5, games=8, rounds=2, jobs=1, say=said.append)
    assert len(speed.bare) == len(speed.watched) == 2
    assert speed.without > 0 and speed.with_clients > 0
    assert speed.cpu_us_without > 0 and speed.cpu_us_with > 0
    assert speed.messages_per_page > 8  # every page read the games' events to the end
    assert speed.bytes_per_page > 1000 and speed.tick_cpu_us > 0 and speed.readers_cpu_us > 0
    assert 0 < speed.tick_cpu_us < speed.cpu_us_with  # the ticks are part of the referee's CPU
    order = [line.split(":")[0] for line in said]  # which side goes first changes by turns
    assert order == ["round 1, 0 pages", "round 1, 5 pages", "round 2, 5 pages", "round 2, 0 pages"]
    assert len(speed.round_ratios) == 2 and len(speed.lines()) == 4
    assert speed.to_json()["pages"] == 5
