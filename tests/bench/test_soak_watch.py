"""The soak's watch: games counted from the server's events, and what a kill cost against
the games journaled at the end."""

from __future__ import annotations

import time

from bench.soak_server import Event
from bench.soak_watch import Watch


def test_games_are_counted_from_the_server_s_events_and_a_sample_keeps_the_count() -> None:
    watch = Watch(10.0, kill=False)
    watch.begin()
    later = time.time() + 3600  # the server's stamp, not the soak's reading, is the game's time
    watch.seen(Event("ladder_game", later, {}))
    watch.seen(Event("connect", later + 1, {}))
    watch.seen(Event("ladder_game", later - 5, {}))
    assert (watch.games, watch.last_game) == (2, later)
    assert watch.since_game() < 0
    assert watch.samples == []
    assert not watch.kill_due() and watch.kill_check({"x"}) is None


def test_a_kill_is_due_at_half_time_once_and_its_losses_are_the_games_gone_since() -> None:
    watch = Watch(60.0, kill=True)
    watch.begin()
    assert not watch.kill_due()
    watch.start -= 30 * 60  # half an hour of the hour's play gone by
    assert watch.kill_due()
    watch.killed(["ladder-000000/g1", "ladder-000000/g2", "ladder-000001/g1"])
    assert not watch.kill_due()
    watch.restarted(orphans=1)
    check = watch.kill_check({"ladder-000000/g1", "ladder-000001/g1", "ladder-000001/g2"})
    assert check is not None
    assert check.journaled == 3
    assert check.lost == ("ladder-000000/g2",)
    assert check.orphans == 1
    assert check.restart_s >= 0


def test_a_sample_averages_the_readings_of_its_seconds_and_keeps_their_peaks() -> None:
    watch = Watch(10.0, kill=False, every=3600.0)
    watch.begin()
    watch.read(10, 30)
    watch.read(0, 0)  # the server gone: no reading
    watch.read(20, 90)
    assert watch.samples == []
    watch.every = 0.0  # the sample's seconds are up
    watch.read(30, 60)
    (sample,) = watch.samples
    assert (sample.server_rss, sample.server_peak) == (20, 30)
    assert (sample.tree_rss, sample.tree_peak) == (60, 90)
    watch.read(0, 0)
    assert len(watch.samples) == 1  # no reading, no sample
    watch.read(40, 50)
    assert (watch.samples[-1].server_rss, watch.samples[-1].tree_peak) == (40, 50)
