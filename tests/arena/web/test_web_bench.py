"""`arena bench --web` measures both sides, and its pages really are sent the games."""

from __future__ import annotations

import pytest

from arena.web.bench import measure


@pytest.mark.slow
def test_the_benchmark_measures_with_and_without_pages() -> None:
    said: list[str] = []
    speed = measure(clients=5, games=8, trials=1, jobs=1, say=said.append)
    assert speed.without > 0 and speed.with_clients > 0
    assert speed.cpu_us_without > 0 and speed.cpu_us_with > 0
    assert speed.events_per_client > 8  # every page read the games' events to the end
    assert [line.split(",")[0] for line in said] == ["trial 1", "trial 1"]
    assert "0 pages" in said[0] and "5 pages" in said[1]
