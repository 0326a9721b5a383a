"""`arena bench ab`: how many games the paired test saves, measured rather than assumed.

Simulated bots of known, graded strength play real engine games in this
process (no gRPC, no processes: thousands of games a minute). One policy with
a noise knob: it bids the likeliest bid it may make and doubts a bid less
likely than not, except that with probability `noise` it plays a random
legal move instead; more noise, a weaker bot.

The same two bots, NEW and OLD, are then tested many times over, each test
from its own seed, in two designs that differ only in the dice: *paired*, NEW
and OLD play each deal (same dice, seat and opponents), as `arena ab` plays;
*unpaired*, each plays a deal of its own. Both feed the same sequential test
(`arena.ab.sprt`) with the same hypotheses, so the only thing measured is
what sharing the deal is worth: the games until a verdict, and how often the
verdict is right. The field's own noise is drawn afresh in every game, as it
would be for real bots: only the dice are shared.

What a deal can save is bounded by how alike it makes the two games: the
correlation between NEW's place and OLD's, printed beside the figures. The
games of a pair part ways at the first decision NEW and OLD make differently,
and a Perudo game has many rounds after that.
"""

from __future__ import annotations

import hashlib
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import engine
from arena.ab.sprt import Hypotheses, PairCounts, Sprt, Verdict, outcome_of
from arena.kit.odds import at_least


@dataclass(frozen=True, slots=True)
class Setup:
    new_noise: float = 0.05
    old_noise: float = 0.25
    opponents: tuple[float, ...] = (0.1, 0.2, 0.3)
    """The opponents' noise: a table is NEW or OLD and these."""
    hypotheses: Hypotheses = field(default_factory=Hypotheses)
    max_pairs: int = 3000
    """A test that reaches this many pairs ends undecided."""
    ruleset: engine.Ruleset = field(default_factory=engine.Ruleset)


def act(obs: engine.Observation, noise: float, rng: random.Random) -> engine.Action:
    """The simulated bot: the likeliest bid, a dudo on an unlikely one, `noise` random moves."""
    if rng.random() < noise:
        return _random_move(obs, rng)
    hand, wild = obs.my_dice, not obs.palifico
    unseen = obs.dice_in_play - len(hand)

    def chance(bid: engine.Bid) -> float:  # odds.chance_true, with the counting done here: fast
        face = bid.face
        mine = sum(1 for d in hand if d == face or (wild and d == engine.PACO))
        per_die = 1 / 3 if wild and face != engine.PACO else 1 / 6
        return at_least(unseen, per_die, bid.count - mine)

    standing = obs.standing
    if standing is not None and obs.can_dudo and chance(standing) < 0.5:
        return engine.DUDO
    bids = [engine.Bid(obs.floors[f - 1], f) for f in range(1, 7) if obs.floors[f - 1]]
    if not bids:
        return engine.DUDO
    return max(bids, key=lambda bid: (chance(bid), -bid.count))


def _random_move(obs: engine.Observation, rng: random.Random) -> engine.Action:
    if obs.can_dudo and rng.random() < 0.3:
        return engine.DUDO
    bids = [engine.Bid(obs.floors[f - 1], f) for f in range(1, 7) if obs.floors[f - 1]]
    return rng.choice(bids) if bids else engine.DUDO


def play(
    ruleset: engine.Ruleset, seed: bytes, deal_key: str, noises: Sequence[float], rng: random.Random
) -> tuple[int, ...]:
    """One game as the referee plays it (same dice from `seed` and `deal_key`): seats, winner
    first. Calza is never offered out of turn here, so the ruleset's calza must not be `any`."""
    dice = engine.HmacDice(seed, deal_key)
    n = len(noises)
    opener = engine.rolloff(dice, n) if ruleset.opener is engine.Opener.ROLLOFF else 0
    state = engine.new_game(ruleset, n, opener)
    while not state.is_over:
        if state.phase is engine.Phase.DEAL:
            state = engine.deal(state, engine.roll_hands(state, dice))
            continue
        seat = state.to_act
        state = engine.apply(state, seat, act(engine.observe(state, seat), noises[seat], rng))
    return state.order


def pair_places(
    setup: Setup, seed: bytes, index: int, paired: bool, rng: random.Random
) -> tuple[int, int]:
    """One pair, NEW's place and OLD's: the same seat among the same opponents, on one deal
    (paired) or on a deal each."""
    opponents = list(setup.opponents)
    rng.shuffle(opponents)
    seat = rng.randrange(len(opponents) + 1)
    places = []
    for who, noise in (("new", setup.new_noise), ("old", setup.old_noise)):
        noises = [*opponents[:seat], noise, *opponents[seat:]]
        key = f"pair-{index}" if paired else f"pair-{index}-{who}"
        places.append(play(setup.ruleset, seed, key, noises, rng).index(seat) + 1)
    return places[0], places[1]


@dataclass(frozen=True, slots=True)
class TestRun:
    counts: PairCounts
    verdict: Verdict
    places: tuple[tuple[int, int], ...]
    """NEW's place and OLD's, pair by pair."""

    @property
    def pairs(self) -> int:
        return self.counts.pairs


def one_test(setup: Setup, run_seed: int, paired: bool) -> TestRun:
    """One sequential test from its own seed, to its verdict or `max_pairs`."""
    seed = hashlib.sha256(f"perudo-arena/bench-ab/{run_seed}".encode()).digest()
    rng = random.Random(run_seed * 2 + paired)
    test = Sprt(setup.hypotheses)
    places = []
    for index in range(setup.max_pairs):
        places.append(pair_places(setup, seed, index, paired, rng))
        test = test.add(outcome_of(*places[-1]))
        if test.verdict is not Verdict.UNDECIDED:
            break
    return TestRun(test.counts, test.verdict, tuple(places))


@dataclass(frozen=True, slots=True)
class DesignResult:
    name: str
    runs: tuple[TestRun, ...]

    @property
    def mean_games(self) -> float:
        return 2 * statistics.fmean(r.pairs for r in self.runs)

    @property
    def median_games(self) -> float:
        return 2 * statistics.median(r.pairs for r in self.runs)

    def share(self, verdict: Verdict) -> float:
        return sum(r.verdict is verdict for r in self.runs) / len(self.runs)

    @property
    def pooled(self) -> PairCounts:
        """Every pair of every test."""
        return PairCounts(
            sum(r.counts.better for r in self.runs),
            sum(r.counts.equal for r in self.runs),
            sum(r.counts.worse for r in self.runs),
        )

    @property
    def correlation(self) -> float:
        """Between NEW's place and OLD's in a pair: what sharing the deal shares. On the
        difference of places, a paired test needs roughly (1 - this) of the games of an
        unpaired one; the placed-better score behaves much the same."""
        places = [p for r in self.runs for p in r.places]
        if len({n for n, _ in places}) < 2 or len({o for _, o in places}) < 2:
            return 0.0
        return statistics.correlation([n for n, _ in places], [o for _, o in places])

    @property
    def information(self) -> float:
        """What one pair tells, (score - 1/2)^2 / variance over the pooled pairs: a test's
        length goes as its inverse, so a ratio of these is a steadier estimate of the
        ratio of games than the tests' lengths themselves."""
        c = self.pooled
        mean = c.score
        square = (c.better + 0.25 * c.equal) / c.pairs
        return (mean - 0.5) ** 2 / max(square - mean * mean, 1e-12)


@dataclass(frozen=True, slots=True)
class Comparison:
    setup: Setup
    paired: DesignResult
    unpaired: DesignResult
    seconds: float

    @property
    def ratio(self) -> float:
        """Games the paired test needs, per game of the unpaired one (mean over runs)."""
        return self.paired.mean_games / self.unpaired.mean_games

    @property
    def information_ratio(self) -> float:
        """The same ratio as predicted from what a pair tells in each design."""
        return self.unpaired.information / max(self.paired.information, 1e-12)

    def lines(self) -> list[str]:
        s, h = self.setup, self.setup.hypotheses
        out = [
            f"NEW noise {s.new_noise:g}, OLD noise {s.old_noise:g}, field {list(s.opponents)}; "
            f"SPRT elo0 {h.elo0:g} elo1 {h.elo1:g} alpha {h.alpha:g} beta {h.beta:g}; "
            f"{len(self.paired.runs)} tests per design",
            f"{'design':<9} {'mean games':>10} {'median':>7} {'NEW won':>8} {'OLD won':>8} "
            f"{'neither':>8} {'undecided':>9} {'pair score':>10} {'info/pair':>9} "
            f"{'place corr':>10}",
        ]
        for d in (self.paired, self.unpaired):
            out.append(
                f"{d.name:<9} {d.mean_games:>10.0f} {d.median_games:>7.0f} "
                f"{d.share(Verdict.NEW_STRONGER):>8.0%} {d.share(Verdict.OLD_STRONGER):>8.0%} "
                f"{d.share(Verdict.NO_EVIDENCE):>8.0%} {d.share(Verdict.UNDECIDED):>9.0%} "
                f"{d.pooled.score:>10.3f} {d.information:>9.3f} {d.correlation:>10.2f}"
            )
        out.append(
            f"paired/unpaired games: {self.ratio:.2f} (goal at most 0.5); from what a pair "
            f"tells: {self.information_ratio:.2f}; in {self.seconds:.0f} s"
        )
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "paired_mean_games": round(self.paired.mean_games, 1),
            "unpaired_mean_games": round(self.unpaired.mean_games, 1),
            "paired_median_games": self.paired.median_games,
            "unpaired_median_games": self.unpaired.median_games,
            "paired_right": self.paired.share(Verdict.NEW_STRONGER),
            "unpaired_right": self.unpaired.share(Verdict.NEW_STRONGER),
            "paired_score": round(self.paired.pooled.score, 4),
            "unpaired_score": round(self.unpaired.pooled.score, 4),
            "paired_information": round(self.paired.information, 4),
            "unpaired_information": round(self.unpaired.information, 4),
            "ratio": round(self.ratio, 3),
            "information_ratio": round(self.information_ratio, 3),
            "paired_place_correlation": round(self.paired.correlation, 3),
            "unpaired_place_correlation": round(self.unpaired.correlation, 3),
            "runs": len(self.paired.runs),
            "seconds": round(self.seconds, 1),
        }


def compare(setup: Setup, runs: int, say: Callable[[str], None] = lambda _: None) -> Comparison:
    """`runs` tests in each design, run seed by run seed, the designs taking turns."""
    started = time.monotonic()
    paired: list[TestRun] = []
    unpaired: list[TestRun] = []
    for run_seed in range(runs):
        paired.append(one_test(setup, run_seed, paired=True))
        unpaired.append(one_test(setup, run_seed, paired=False))
        say(
            f"test {run_seed + 1}/{runs}: paired {2 * paired[-1].pairs} games "
            f"({paired[-1].verdict.value}), unpaired {2 * unpaired[-1].pairs} "
            f"({unpaired[-1].verdict.value})"
        )
    return Comparison(
        setup,
        DesignResult("paired", tuple(paired)),
        DesignResult("unpaired", tuple(unpaired)),
        time.monotonic() - started,
    )
