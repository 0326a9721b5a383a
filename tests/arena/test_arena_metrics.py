"""The metrics' own registry: what it exposes parses as Prometheus reads it, each server's
counts are its own, and the lateness timer times the loop it runs in."""

from __future__ import annotations

import asyncio
import time

from prometheus_client.parser import text_string_to_metric_families

from arena.metrics import SESSION_STATES, Metrics


def _samples(metrics: Metrics) -> dict[str, float]:
    text = metrics.exposition().decode()
    return {
        sample.name + "".join(f"|{v}" for _, v in sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_two_servers_count_apart_and_verdicts_are_counted_by_label() -> None:
    one, two = Metrics(), Metrics()
    one.count_submission("accepted")
    one.count_submission("accepted")
    one.count_build("failed")
    one.games.inc()
    seen = _samples(one)
    assert seen["perudo_arena_submissions_total|accepted"] == 2
    assert seen["perudo_arena_builds_total|failed"] == 1
    assert seen["perudo_arena_games_total"] == 1
    assert _samples(two)["perudo_arena_games_total"] == 0
    assert "perudo_arena_submissions_total|accepted" not in _samples(two)


def test_sessions_are_read_at_each_scrape() -> None:
    metrics = Metrics()
    now = {"idle": 3, "playing": 1}
    metrics.follow_sessions(lambda: now)
    seen = _samples(metrics)
    assert [seen[f"perudo_arena_sessions|{s}"] for s in SESSION_STATES] == [0, 3, 1]
    now["idle"] = 0
    assert _samples(metrics)["perudo_arena_sessions|idle"] == 0


def test_the_ladder_is_read_at_each_scrape_its_fault_by_kind() -> None:
    metrics = Metrics()
    now: list[tuple[bool, str | None]] = [(True, None)]
    metrics.follow_ladder(("store", "disk"), lambda: now[0])
    seen = _samples(metrics)
    assert seen["perudo_arena_ladder_running"] == 1
    assert (
        seen["perudo_arena_ladder_trouble|store"] == seen["perudo_arena_ladder_trouble|disk"] == 0
    )
    now[0] = (False, "store")
    seen = _samples(metrics)
    assert seen["perudo_arena_ladder_running"] == 0
    assert seen["perudo_arena_ladder_trouble|store"] == 1
    assert seen["perudo_arena_ladder_trouble|disk"] == 0


def test_the_lateness_timer_sees_a_loop_held_up() -> None:
    async def body() -> dict[str, float]:
        metrics = Metrics()
        count = "perudo_arena_referee_lateness_seconds_count"
        metrics.watch_loop()
        try:
            async with asyncio.timeout(30):
                while _samples(metrics)[count] < 2:
                    await asyncio.sleep(0.01)
            time.sleep(0.3)  # the loop held up, as a long pause of the referee would
            async with asyncio.timeout(30):  # the wake-up after it: at least 0.25 s late
                while (seen := _samples(metrics))[
                    "perudo_arena_referee_lateness_seconds_bucket|0.25"
                ] == seen[count]:
                    await asyncio.sleep(0.01)
        finally:
            metrics.unwatch_loop()
        return _samples(metrics)

    seen = asyncio.run(body())
    assert seen["perudo_arena_referee_lateness_seconds_sum"] >= 0.25
    assert seen["process_resident_memory_bytes"] > 0
