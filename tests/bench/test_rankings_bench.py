"""`arena bench rankings`: bots of graded strength, its designs, and a tiny run of it."""

from __future__ import annotations

import random
from collections import Counter

import engine
from bench.rankings import NOISES, TABLE, report, run_rankings, unit_groups
from bench.simulated import play


def test_less_noise_is_a_stronger_bot() -> None:
    rng = random.Random(3)
    ruleset = engine.Ruleset(dice_per_player=3)
    wins = Counter(
        play((0.0, 1.0) if g % 2 else (1.0, 0.0), b"k" * 32, f"g{g}", rng, ruleset)[0] == g % 2
        for g in range(200)
    )
    assert wins[False] > 0.65 * 200  # seat 0 held the noiseless bot in even games, 1 in odd


def test_a_disjoint_deal_is_met_by_no_bot_twice() -> None:
    bots = range(len(NOISES))
    for disjoint in (False, True):
        groups = unit_groups(bots, random.Random(1), disjoint, 0)
        games = [game for members in groups.values() for game in members]
        assert len(games) == 20 * TABLE  # every table of 3 of 6, in every rotation
        by_deal: dict[str, list[tuple[int, ...]]] = {}
        for seated, deal in games:
            by_deal.setdefault(deal, []).append(seated)
        for seats in by_deal.values():
            assert len(seats) == (2 if disjoint else 1)
            seen = [b for seated in seats for b in seated]
            assert len(seen) == len(set(seen))


def test_a_small_run_reports_every_figure() -> None:
    said: list[str] = []
    figures = run_rankings(2, 1, 20, 1, said.append)
    assert figures.games_played == 2 * 2 * 60
    assert len(said) == 2
    assert set(figures.coverage) == {"fresh dice", "disjoint deals"}
    assert all(0 <= share <= 1 for share in figures.coverage.values())
    text = "\n".join(report(figures))
    assert "TrueSkill / batch fit" in text and "intervals holding the true strength" in text
