"""The sequential test behind `arena ab`: a generalised SPRT on paired outcomes.

Each pair of games (one deal, one seat, the same opponents; NEW in the seat
once and OLD once) gives one outcome: NEW placed better than OLD did, the
same, or worse, scored 1, 1/2 or 0. The pair's expected score `s` is the
quantity tested, on the logistic Elo scale (`s = 1 / (1 + 10^(-elo/400))`).

The likelihood ratio is fishtest's generalised SPRT: under each hypothesis
the outcome distribution is the maximum-likelihood one whose mean is that
hypothesis's score (the distribution nearest to the counts seen, in
Kullback-Leibler distance), so no draw rate has to be assumed. Zero counts
are regularised as fishtest does, so the first pairs do not give an infinite
ratio.

The verdict is two-sided, since an author wants to hear of a regression as
much as of a gain: one test asks whether NEW is stronger by `elo1` rather
than `elo0`, its mirror whether OLD is. Each runs until its log-likelihood
ratio leaves the bounds `log(beta / (1 - a))` and `log((1 - beta) / a)`,
where `a` is half of `alpha`: `alpha` is the chance, between bots of equal
strength, of naming either one the winner. A winner is named as soon as
either test accepts it; "no evidence" needs both to reject theirs.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass

from arena.errors import ArenaError

REGULARISE = 1e-3
"""A zero count is taken as this much (fishtest's choice): a ratio of finite size."""


class Outcome(enum.Enum):
    """How NEW placed against OLD on one deal; the value is NEW's score."""

    BETTER = 1.0
    EQUAL = 0.5
    WORSE = 0.0


def outcome_of(new_place: int, old_place: int) -> Outcome:
    """Places count from 1 (the winner): a smaller place is better."""
    if new_place < old_place:
        return Outcome.BETTER
    if new_place > old_place:
        return Outcome.WORSE
    return Outcome.EQUAL


def score_of(elo: float) -> float:
    """The expected pair score of a bot `elo` points stronger (logistic Elo)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def elo_of(score: float) -> float:
    """The logistic Elo difference a pair score stands for (infinite at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


class HypothesisError(ArenaError, ValueError):
    """Hypotheses or error rates that make no test; the message names the flag."""


@dataclass(frozen=True, slots=True)
class Hypotheses:
    elo0: float = 0.0
    """The difference that is no gain worth having (H0 of each direction)."""
    elo1: float = 40.0
    """The difference worth detecting (H1 of each direction)."""
    alpha: float = 0.05
    """The chance of naming a winner when the bots differ by `elo0` (both directions together)."""
    beta: float = 0.05
    """The chance of missing a winner that is stronger by `elo1`."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.elo0 < self.elo1:
            raise HypothesisError(
                f"--elo0 {self.elo0:g} and --elo1 {self.elo1:g}: the test needs "
                f"0 <= elo0 < elo1 (elo1 is the gain worth detecting)"
            )
        if self.elo1 >= 1000:
            raise HypothesisError(f"--elo1 {self.elo1:g} is no difference a test can measure")
        for flag, rate in (("--alpha", self.alpha), ("--beta", self.beta)):
            if not 0.0 < rate < 0.5:
                raise HypothesisError(f"{flag} {rate:g}: an error rate is between 0 and 0.5")

    @property
    def lower(self) -> float:
        """At or below it, a direction's H0 is accepted."""
        return math.log(self.beta / (1.0 - self.alpha / 2))

    @property
    def upper(self) -> float:
        """At or above it, a direction's H1 is accepted: a winner."""
        return math.log((1.0 - self.beta) / (self.alpha / 2))


@dataclass(frozen=True, slots=True)
class PairCounts:
    better: int = 0
    equal: int = 0
    worse: int = 0

    def add(self, outcome: Outcome) -> PairCounts:
        return PairCounts(
            self.better + (outcome is Outcome.BETTER),
            self.equal + (outcome is Outcome.EQUAL),
            self.worse + (outcome is Outcome.WORSE),
        )

    @property
    def pairs(self) -> int:
        return self.better + self.equal + self.worse

    @property
    def score(self) -> float:
        """NEW's mean pair score (1/2 before any pair)."""
        if not self.pairs:
            return 0.5
        return (self.better + 0.5 * self.equal) / self.pairs


def _nearest(freqs: tuple[float, ...], values: tuple[float, ...], mean: float) -> list[float]:
    """The distribution on `values` with this `mean` that is likeliest to have given `freqs`.

    It is `freqs[i] / (1 + lam * (values[i] - mean))` for the `lam` that gives
    it the mean; the condition on `lam` is decreasing, so a safeguarded
    Newton step inside the interval where every weight stays positive finds it.
    """
    gaps = [v - mean for v in values]
    lo, hi = -1.0 / max(gaps), -1.0 / min(gaps)
    terms = list(zip(freqs, gaps, strict=True))
    lam = 0.0
    for _ in range(100):
        f = slope = 0.0
        for p, g in terms:
            w = g / (1.0 + lam * g)
            f += p * w
            slope -= p * w * w
        if abs(f) < 1e-13:
            break
        if f > 0:
            lo = lam
        else:
            hi = lam
        step = lam - f / slope
        lam = step if lo < step < hi else (lo + hi) / 2
    return [p / (1.0 + lam * g) for p, g in terms]


def llr(counts: PairCounts, s0: float, s1: float) -> float:
    """The log-likelihood ratio of mean score `s1` against `s0` after `counts`."""
    n = counts.pairs
    if not n:
        return 0.0
    raw = (counts.better, counts.equal, counts.worse)
    kept = [float(c) if c else REGULARISE for c in raw]
    total = sum(kept)
    freqs = tuple(c / total for c in kept)
    values = (Outcome.BETTER.value, Outcome.EQUAL.value, Outcome.WORSE.value)
    p0 = _nearest(freqs, values, s0)
    p1 = _nearest(freqs, values, s1)
    return n * sum(f * math.log(a / b) for f, a, b in zip(freqs, p1, p0, strict=True))


class Verdict(enum.Enum):
    UNDECIDED = "undecided"
    NEW_STRONGER = "new"
    OLD_STRONGER = "old"
    NO_EVIDENCE = "none"


class Side(enum.Enum):
    OPEN = "open"
    H0 = "h0"
    H1 = "h1"


@dataclass(frozen=True, slots=True)
class Sprt:
    """Where the test stands: every pair so far, both directions' ratios and decisions."""

    hypotheses: Hypotheses
    counts: PairCounts = PairCounts()
    llr_new: float = 0.0
    """log-likelihood ratio of "NEW stronger by elo1" against "by elo0"."""
    llr_old: float = 0.0
    """The same for OLD."""
    new_side: Side = Side.OPEN
    old_side: Side = Side.OPEN
    decided_at: int | None = None
    """Pairs when the verdict was reached."""

    @property
    def verdict(self) -> Verdict:
        if self.new_side is Side.H1:
            return Verdict.NEW_STRONGER
        if self.old_side is Side.H1:
            return Verdict.OLD_STRONGER
        if self.new_side is Side.H0 and self.old_side is Side.H0:
            return Verdict.NO_EVIDENCE
        return Verdict.UNDECIDED

    def add(self, outcome: Outcome) -> Sprt:
        """One more pair; once there is a verdict it stands as reached, later pairs uncounted."""
        if self.verdict is not Verdict.UNDECIDED:
            return self
        counts = self.counts.add(outcome)
        h = self.hypotheses
        s0, s1 = score_of(h.elo0), score_of(h.elo1)
        new = llr(counts, s0, s1)
        old = llr(counts, 1.0 - s0, 1.0 - s1)
        new_side, old_side = _decide(self.new_side, new, h), _decide(self.old_side, old, h)
        after = Sprt(h, counts, new, old, new_side, old_side)
        if after.verdict is Verdict.UNDECIDED:
            return after
        return Sprt(h, counts, new, old, new_side, old_side, counts.pairs)


def _decide(side: Side, ratio: float, h: Hypotheses) -> Side:
    if side is not Side.OPEN:
        return side
    if ratio >= h.upper:
        return Side.H1
    if ratio <= h.lower:
        return Side.H0
    return Side.OPEN


def run(hypotheses: Hypotheses, outcomes: Iterable[Outcome]) -> Sprt:
    """The test after `outcomes`, in the order given; those after the verdict are not counted."""
    test = Sprt(hypotheses)
    for outcome in outcomes:
        test = test.add(outcome)
        if test.verdict is not Verdict.UNDECIDED:
            break
    return test
