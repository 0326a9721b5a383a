"""A kit policy sees its decision's clock: the time left and the bank, as the referee tells them.

Two kit bots play a real tournament with a bank and an increment, each writing
what its policy saw to its log; the figures are read back against the time
control the tournament was given.
"""

from __future__ import annotations

import asyncio
import json
from collections import defaultdict
from pathlib import Path

import pytest
from tournament_harness import Quiet

import arena.kit.clock as kit_clock
from arena.bots.isolation.sandbox import SandboxMode
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament

TIMED = """\
import json
import sys

from arena.kit import PASS, TimedObservation, run
from engine import DUDO, Bid


def act(obs: TimedObservation):
    clock = obs.clock
    seen = {{
        "round": obs.round,
        "time_left_ms": clock.time_left_ms,
        "bank_left_ms": clock.bank_left_ms,
        "move_time_ms": clock.move_time_ms,
        "increment_ms": clock.increment_ms,
        "remaining": clock.remaining(),
    }}
    print("CLOCK " + json.dumps(seen), file=sys.stderr, flush=True)
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo and obs.standing.count > {greed}:
        return DUDO
    face = max(f for f in range(1, 7) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
"""


@pytest.mark.slow
def test_a_kit_policy_is_told_the_time_left_and_its_bank(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name, greed in (("timed-a", 2), ("timed-b", 3)):
        (bots / f"{name.replace('-', '_')}.py").write_text(TIMED.format(greed=greed))
    config = TournamentConfig(
        bots_dir=bots,
        out=tmp_path / "out",
        games=2,
        jobs=1,
        move_time=5.0,
        time_bank=2.0,
        increment=0.25,
        connect_timeout=60,
        name="clocked",
        sandbox=SandboxMode.OFF,
    )
    summary = asyncio.run(Tournament(config, Quiet()).run())
    assert summary.games == 2
    seen: dict[str, list[dict[str, float]]] = defaultdict(list)
    for name in ("timed-a", "timed-b"):
        log = (summary.folder / "logs" / f"{name}.log").read_text()
        for line in log.splitlines():
            if line.startswith("CLOCK "):
                seen[name].append(json.loads(line.removeprefix("CLOCK ")))
    assert set(seen) == {"timed-a", "timed-b"}
    every = [s for records in seen.values() for s in records]
    for s in every:
        assert (s["move_time_ms"], s["increment_ms"]) == (5000, 250)
        assert s["time_left_ms"] == s["move_time_ms"] + s["bank_left_ms"]
        assert 0 < s["remaining"] <= s["time_left_ms"] / 1000
    banks = {s["bank_left_ms"] for s in every}
    assert min(banks) == 2000  # each game's first decision: the whole bank
    assert max(banks) > 2000  # later ones: the increments paid in


def test_the_time_remaining_counts_down_from_when_the_request_was_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    now = [100.0]
    monkeypatch.setattr(kit_clock.time, "monotonic", lambda: now[0])
    clock = kit_clock.DecisionClock(
        time_left_ms=1500, bank_left_ms=500, move_time_ms=1000, increment_ms=0, received=100.0
    )
    assert clock.remaining() == pytest.approx(1.5)
    now[0] = 100.4
    assert clock.remaining() == pytest.approx(1.1)
    now[0] = 101.5
    assert clock.remaining() == 0.0
    now[0] = 103.0  # past its time: never below zero
    assert clock.remaining() == 0.0
