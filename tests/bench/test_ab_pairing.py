"""The A/B benchmark's simulated games: the referee's dice, strength that follows the noise
knob, and the two designs differing in the deal alone."""

from __future__ import annotations

import random

import engine
from arena.ab.sprt import Hypotheses, Verdict
from bench.ab_pairing import Setup, compare, play

SEED = bytes(range(32))


def test_a_game_replays_from_its_deal_and_the_bots_choices() -> None:
    ruleset = engine.Ruleset()
    one = play(ruleset, SEED, "deal-1", [0.0, 0.0, 0.0], random.Random(1))
    assert sorted(one) == [0, 1, 2]
    assert one == play(ruleset, SEED, "deal-1", [0.0, 0.0, 0.0], random.Random(2))
    others = {play(ruleset, SEED, f"deal-{i}", [0.0, 0.0, 0.0], random.Random(1)) for i in range(8)}
    assert len(others) > 1  # the deal decides a noise-free game, and deals differ


def test_less_noise_is_a_stronger_bot() -> None:
    ruleset = engine.Ruleset()
    rng = random.Random(3)
    orders = [play(ruleset, SEED, f"d{i}", [0.0, 1.0], rng) for i in range(40)]
    assert sum(order[0] == 0 for order in orders) >= 30


def test_both_designs_are_measured_side_by_side() -> None:
    setup = Setup(
        new_noise=0.0,
        old_noise=1.0,
        opponents=(0.5,),
        hypotheses=Hypotheses(elo1=200),
        max_pairs=30,
    )
    result = compare(setup, runs=2)
    for design in (result.paired, result.unpaired):
        assert len(design.runs) == 2
        assert all(r.verdict is Verdict.NEW_STRONGER for r in design.runs)
        assert design.mean_games == 2 * sum(r.pairs for r in design.runs) / 2
    assert result.ratio == result.paired.mean_games / result.unpaired.mean_games
    said = "\n".join(result.lines())
    assert "paired/unpaired games" in said and "unpaired" in said
