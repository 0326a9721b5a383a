"""`arena run --web` serves /metrics beside its page: scraped over HTTP while the night plays,
it parses with Prometheus's own parser and counts the games, decisions and sessions in play."""

from __future__ import annotations

import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from web_harness import WAIT_S, make_bots, running


def _scrape(url: str) -> dict[str, float]:
    with urllib.request.urlopen(url + "metrics", timeout=WAIT_S) as response:
        text = response.read().decode()
    return {
        sample.name + "".join(f"|{v}" for _, v in sorted(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


@pytest.mark.slow
def test_a_nights_metrics_move_with_its_games(tmp_path: Path) -> None:
    slow = {"BOT_MODE": "slow", "BOT_SLEEP": "0.02"}
    bots = make_bots(tmp_path / "bots", {"ann": slow, "ben": slow, "cid": slow})
    args = ["run", "--bots", str(bots), "--games", "30", "--out", str(tmp_path / "out")]
    with running([*args, "--sandbox", "off", "--table-size", "2", "--web", "127.0.0.1:0"]) as run:
        url = run.url()
        deadline = time.monotonic() + WAIT_S
        seen = _scrape(url)
        while seen["perudo_arena_games_total"] < 2:  # played while the page is up
            assert time.monotonic() < deadline and run.proc.poll() is None, run.output
            time.sleep(0.1)
            seen = _scrape(url)
        later = _scrape(url)
        run.proc.terminate()  # Ctrl-C's stop: the games in flight finish
        run.wait()
    assert "Metrics for Prometheus: " + url + "metrics" in run.output
    assert seen["perudo_arena_decisions_total"] > 0
    assert later["perudo_arena_decisions_total"] >= seen["perudo_arena_decisions_total"]
    assert seen["perudo_arena_sessions|idle"] + seen["perudo_arena_sessions|playing"] > 0
    assert seen["perudo_arena_referee_lateness_seconds_count"] > 0
