"""The A/B test's SPRT: its arithmetic, and its error rates over many seeded simulated tests."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.ab.sprt import (
    Hypotheses,
    HypothesisError,
    Outcome,
    PairCounts,
    Sprt,
    Verdict,
    _nearest,
    elo_of,
    llr,
    outcome_of,
    run,
    score_of,
)


def test_bounds_are_walds_with_alpha_split_between_the_two_directions() -> None:
    h = Hypotheses(alpha=0.05, beta=0.1)
    assert h.lower == pytest.approx(math.log(0.1 / (1 - 0.025)))
    assert h.upper == pytest.approx(math.log((1 - 0.1) / 0.025))


@pytest.mark.parametrize(
    ("kwargs", "flag"),
    [
        ({"elo0": 10, "elo1": 5}, "--elo0"),
        ({"elo0": -1}, "--elo0"),
        ({"elo1": math.nan}, "--elo0"),
        ({"alpha": 0}, "--alpha"),
        ({"beta": 0.7}, "--beta"),
        ({"alpha": math.nan}, "--alpha"),
    ],
)
def test_hypotheses_that_make_no_test_are_refused_naming_the_flag(
    kwargs: dict[str, float], flag: str
) -> None:
    with pytest.raises(HypothesisError, match=flag):
        Hypotheses(**kwargs)


def test_places_make_outcomes_a_smaller_place_being_better() -> None:
    assert outcome_of(1, 3) is Outcome.BETTER
    assert outcome_of(4, 2) is Outcome.WORSE
    assert outcome_of(2, 2) is Outcome.EQUAL


@given(st.floats(-600, 600))
def test_elo_and_score_are_inverse(elo: float) -> None:
    assert elo_of(score_of(elo)) == pytest.approx(elo, abs=1e-6)


@given(
    st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(0, 50)).filter(
        lambda c: sum(c) > 0
    ),
    st.floats(0.05, 0.95),
)
def test_the_nearest_distribution_has_the_asked_mean(
    counts: tuple[int, int, int], mean: float
) -> None:
    kept = [c if c else 1e-3 for c in counts]
    freqs = tuple(c / sum(kept) for c in kept)
    p = _nearest(freqs, (1.0, 0.5, 0.0), mean)
    assert all(x > 0 for x in p)
    assert sum(p) == pytest.approx(1.0, abs=1e-9)
    assert p[0] + 0.5 * p[1] == pytest.approx(mean, abs=1e-9)


def test_the_ratio_grows_with_wins_and_is_zero_between_equal_hypotheses() -> None:
    s0, s1 = score_of(0), score_of(40)
    assert llr(PairCounts(), s0, s1) == 0.0
    assert llr(PairCounts(10, 5, 10), s0, s0) == pytest.approx(0.0, abs=1e-12)
    ratios = [llr(PairCounts(better, 10, 20), s0, s1) for better in range(10, 40, 5)]
    assert ratios == sorted(ratios)
    assert ratios[0] < 0 < ratios[-1]


def test_a_verdict_stands_as_reached() -> None:
    h = Hypotheses(elo1=200)
    test = run(h, [Outcome.BETTER] * 100)
    assert test.verdict is Verdict.NEW_STRONGER
    assert test.decided_at == test.counts.pairs < 100
    assert test.llr_new >= h.upper
    assert test.add(Outcome.WORSE) == test


def _simulated(true_elo: float, h: Hypotheses, seed: int, draws: float = 0.3) -> Sprt:
    """One test on pairs drawn with NEW's expected score that of `true_elo`, `draws` of them
    equal: pure Python, no games."""
    rng = random.Random(seed)
    score = score_of(true_elo)
    better = score - draws / 2
    assert 0 < better < 1 - draws
    test = Sprt(h)
    while test.verdict is Verdict.UNDECIDED:
        x = rng.random()
        test = test.add(
            Outcome.BETTER if x < better else Outcome.EQUAL if x < better + draws else Outcome.WORSE
        )
    return test


RUNS = 300


def _slack(rate: float) -> float:
    """Three standard errors of a rate measured over RUNS tests."""
    return 3 * math.sqrt(rate * (1 - rate) / RUNS)


def test_clearly_different_bots_get_the_right_verdict_both_ways() -> None:
    h = Hypotheses(elo1=100)
    stronger = [_simulated(200, h, seed).verdict for seed in range(RUNS // 4)]
    weaker = [_simulated(-200, h, seed).verdict for seed in range(RUNS // 4)]
    assert stronger.count(Verdict.NEW_STRONGER) >= 0.95 * len(stronger)
    assert weaker.count(Verdict.OLD_STRONGER) >= 0.95 * len(weaker)


def test_identical_bots_are_called_different_at_most_at_the_stated_rate() -> None:
    h = Hypotheses(elo1=150, alpha=0.05)
    verdicts = [_simulated(0, h, seed).verdict for seed in range(RUNS)]
    wrong = (verdicts.count(Verdict.NEW_STRONGER) + verdicts.count(Verdict.OLD_STRONGER)) / RUNS
    assert wrong <= h.alpha + _slack(h.alpha)
    assert verdicts.count(Verdict.NO_EVIDENCE) == RUNS - round(wrong * RUNS)


def test_a_gain_of_elo1_is_found_at_the_stated_rate() -> None:
    h = Hypotheses(elo1=150, beta=0.05)
    verdicts = [_simulated(150, h, seed).verdict for seed in range(RUNS)]
    missed = 1 - verdicts.count(Verdict.NEW_STRONGER) / RUNS
    assert missed <= h.beta + _slack(h.beta)
