"""`arena bench` runs end to end and reports every figure; the figures are not judged here.

Speed is measured by the benchmark itself, side by side in one run, never by
timed assertions in tests: these machines are shared and noisy.
"""

from __future__ import annotations

import json
import pstats
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.run.capacity import usable_cores
from arena.protocol.messages import referee as pb
from bench.benchmark import sample_requests
from bench.engine_speed import random_legal

KEYS = {
    "engine_us_per_decision",
    "transport_roundtrips_per_s",
    "arena_decisions_per_s",
    "arena_to_transport_ratio",
    "referee_overhead_p50_us",
    "referee_overhead_p99_us",
    "transport_overhead_p50_us",
    "transport_overhead_p99_us",
    "concurrency",
}


@pytest.mark.slow
def test_bench_json_reports_every_key(tmp_path: Path) -> None:
    profile = tmp_path / "arena.prof"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli.main",
            "bench",
            "speed",
            "--json",
            "--seconds",
            "0.5",
            "--rounds",
            "1",
            "--concurrency",
            "2",
            "--bots",
            "2",
            "--profile",
            str(profile),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    figures = json.loads(done.stdout)
    assert set(figures) >= KEYS
    assert 0 < figures["referee_overhead_p50_us"] <= figures["referee_overhead_p99_us"]
    assert 0 < figures["transport_overhead_p50_us"] <= figures["transport_overhead_p99_us"]
    functions = {f for _, _, f in pstats.Stats(str(profile)).stats}  # type: ignore[attr-defined]
    assert "play" in functions  # the match's own, among where the time went
    assert figures["concurrency"] == 2
    assert figures["transport_roundtrips_per_s"] > 0 and figures["arena_decisions_per_s"] > 0
    ratio = figures["arena_decisions_per_s"] / figures["transport_roundtrips_per_s"]
    assert abs(figures["arena_to_transport_ratio"] - ratio) < 0.01


def test_the_recorded_requests_are_real_decisions() -> None:
    requests = sample_requests(games=2)
    assert requests
    for encoded in requests:
        request = pb.RefereeMessage.FromString(encoded).request
        assert len(request.min_count) == 6
        assert request.dice_in_play == sum(request.dice_counts)
        assert len(request.my_dice) == request.dice_counts[request.seat]


def test_the_benchmark_policy_only_plays_legal_moves() -> None:
    rng = random.Random(4)
    dice = engine.HmacDice(b"t" * 32, "policy")
    for players in (2, 6):
        state = engine.new_game(engine.Ruleset(), players, 0)
        while not state.is_over:
            if state.phase is engine.Phase.DEAL:
                state = engine.deal(state, engine.roll_hands(state, dice))
                continue
            action = random_legal(engine.observe(state, state.to_act), rng)
            assert engine.is_legal(state, state.to_act, action)
            state = engine.apply(state, state.to_act, action)


@pytest.mark.slow
def test_bench_with_the_sandbox_reports_both_sides() -> None:
    if not decide(SandboxMode.AUTO).active:
        pytest.skip(decide(SandboxMode.AUTO).why_not)
    done = subprocess.run(
        [
            *(sys.executable, "-m", "arena.cli.main", "bench", "speed", "--json", "--sandbox"),
            *("--seconds", "0.5", "--rounds", "1", "--concurrency", "2", "--bots", "2"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    figures = json.loads(done.stdout)
    assert figures["sandboxed_decisions_per_s"] > 0
    ratio = figures["sandboxed_decisions_per_s"] / figures["arena_decisions_per_s"]
    assert abs(figures["sandboxed_to_unsandboxed_ratio"] - ratio) < 0.01
    assert figures["sandboxed_spawn_ms"] > 0 and figures["spawn_ms"] > 0
    assert figures["sandboxed_startup_ms_per_bot"] > 0


@pytest.mark.slow
def test_bench_timing_counts_timeouts_per_setting_and_marks_those_over_the_cap() -> None:
    over = usable_cores() + 1
    done = subprocess.run(
        [
            *(sys.executable, "-m", "arena.cli.main", "bench", "timing", "--json"),
            *("--seconds", "1", "--bots", "3", "--jobs", f"1,{over}"),
            *("--move-time", "0.2"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    settings = json.loads(done.stdout)
    assert [s["jobs"] for s in settings] == [1, over]
    assert [s["allowed_without_force_jobs"] for s in settings] == [True, False]
    for s in settings:
        assert s["decisions"] > 0
        assert s["timeouts_per_10000"] == round(10_000 * s["timeouts"] / s["decisions"], 2)


@pytest.mark.slow
def test_bench_timing_plays_each_setting_direct_and_through_the_front_door() -> None:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "arena.cli.main", "bench", "timing", "--json"),
            *("--seconds", "1", "--bots", "3", "--jobs", "1", "--front-door"),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    settings = json.loads(done.stdout)
    assert [(s["jobs"], s["front_door"]) for s in settings] == [(1, False), (1, True)]
    for s in settings:
        assert s["decisions"] > 0 and s["decisions_per_second"] > 0
        assert s["median_decision_ms"] > 0
