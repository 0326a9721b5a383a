"""`arena bench ladder`: the ladder's matchmaking against the round robin, measured.

Simulated leagues of in-process bots of known strength (`simulated`: one
policy, graded by noise, `noises`) are played three ways at the same table size:

- the round robin, as a night plays it: units of every table in every
  rotation, each unit's tables in a random order, a table's games together;
- the ladder fed TrueSkill: each next table chosen by `arena.matchmaking.choose`
  from TrueSkill ratings updated after every game, and played in every
  rotation;
- the ladder fed the batch fit: the same, from the batch fit's strengths and
  bootstrap intervals as of the last look (`arena.matchmaking.from_fit`), fresh
  ratings before the first.

Both are looked at by one measure, the league's own: the batch fit's bootstrap
over the tables (each a rotation group), as `arena run --until-confident`
looks (once the games have grown by `LOOK_GROWTH` since the last look, from
`MIN_GROUPS` tables). A league is sure when its bootstrap separates every
adjacent pair of its fitted order at 95%; the figures are the games it took,
and whether that order was the true one (the order of the noises). A league
not sure by `CAP_UNITS` round-robin units' worth of games counts as never.
"""

from __future__ import annotations

import hashlib
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass
from itertools import combinations

import trueskill

import engine
from arena.matchmaking import FRESH, Draw, Entrant, Rating, Reason, Rules, choose, from_fit
from arena.rankings import Finish, confidence, wilson
from bench.simulated import play

BOTS = 8
"""Bots of noise 0 to 1, evenly spaced: strength falls about evenly with noise, 2 in the
batch fit's log scale from the first to the last, so eight are 0.29 apart (a 3-player game
tells two neighbours apart only a little better than a coin)."""
TABLE = 3
DICE = 3
"""As `--rankings`: 3 dice a bot, not the rulebook's 5, so that a run fits in minutes."""
LOOK_GROWTH = 1.1
MIN_GROUPS = 8
RESAMPLES = 100
CAP_UNITS = 25
CHOOSE_FIELD = 500
"""Entrants of the field `choose` is timed on: a large league's."""
GOAL = 0.7
"""The ladder's games to a sure order, at most this share of the round robin's."""
ROUND_ROBIN = "round robin"
BY_TRUESKILL = "ladder, TrueSkill"
BY_FIT = "ladder, batch fit"
DESIGNS = (ROUND_ROBIN, BY_TRUESKILL, BY_FIT)
LADDERS = DESIGNS[1:]
_TS = trueskill.TrueSkill(draw_probability=0.0)
"""As the league's ratings."""

Group = tuple[tuple[int, ...], ...]
"""A table's games: the bots by seat in each rotation."""


@dataclass(frozen=True, slots=True)
class League:
    """One simulated league under one design."""

    games: int | None
    """Games when the bootstrap first separated every adjacent pair; None: not by the cap."""
    right: bool
    """Whether the order it was then sure of was the true one."""
    least_share: float
    """The fewest games any bot had then, over the mean: the fairness floor, as played."""
    reasons: dict[str, int]
    """Tables by why they were chosen (a ladder's)."""


@dataclass(frozen=True, slots=True)
class Ratio:
    """A ladder's mean games over the round robin's, and its 95% interval: a bootstrap over
    the leagues of each."""

    mean: float
    low: float
    high: float

    def verdict(self) -> str:
        if self.high <= GOAL:
            return "met"
        return "met on the mean" if self.mean <= GOAL else "NOT met"


@dataclass(frozen=True, slots=True)
class LadderFigures:
    bots: int
    leagues: int
    cap: int
    designs: dict[str, tuple[League, ...]]
    ratios: dict[str, Ratio]
    """Each ladder's, over the round robin."""
    choose_ms: float
    """The median time to choose a table among `CHOOSE_FIELD` entrants."""
    seconds: float

    def lines(self) -> list[str]:
        return report(self)

    def to_json(self) -> dict[str, object]:
        def design(leagues: tuple[League, ...]) -> dict[str, object]:
            sure = [x for x in leagues if x.games is not None]
            right = sum(x.right for x in sure)
            low, high = wilson(right, len(sure)) if sure else (0.0, 1.0)
            return {
                "games": [x.games for x in leagues],
                "mean_games": round(_mean(leagues, self.cap), 1),
                "median_games": statistics.median(_counted(leagues, self.cap)),
                "sure": len(sure),
                "right": right,
                "right_low": round(low, 3),
                "right_high": round(high, 3),
                "least_share": round(min(x.least_share for x in leagues), 3),
                "reasons": dict(sum((Counter(x.reasons) for x in leagues), Counter())),
            }

        return {
            "bots": self.bots,
            "noises": list(noises(self.bots)),
            "table": TABLE,
            "dice": DICE,
            "leagues": self.leagues,
            "cap_games": self.cap,
            **{_key(d): design(self.designs[d]) for d in DESIGNS},
            "ratios": {
                _key(d): {
                    "mean": round(r.mean, 3),
                    "low": round(r.low, 3),
                    "high": round(r.high, 3),
                }
                for d, r in self.ratios.items()
            },
            "choose_ms_at_500": round(self.choose_ms, 3),
            "seconds": round(self.seconds, 1),
        }


def noises(bots: int) -> tuple[float, ...]:
    """The field's noises, best bot first: the true order is this one."""
    return tuple(round(i / (bots - 1), 3) for i in range(bots))


def run_ladder(
    leagues: int,
    seed: int,
    say: Callable[[str], None],
    bots: int = BOTS,
    cap_units: int = CAP_UNITS,
    workers: int = 1,
) -> LadderFigures:
    """Play `leagues` simulated leagues each way, `workers` at a time, and measure."""
    started = time.perf_counter()
    cap = cap_units * math.comb(bots, TABLE) * TABLE
    plays = [(d, bots, seed, n, cap) for n in range(leagues) for d in DESIGNS]
    results: dict[str, list[League]] = {d: [] for d in DESIGNS}
    with ExitStack() as stack:
        if workers > 1:
            pool = stack.enter_context(ProcessPoolExecutor(workers))
            outcomes: Iterator[League] = pool.map(_play_league, plays)
        else:
            outcomes = map(_play_league, plays)
        for (design, *_), league in zip(plays, outcomes, strict=True):
            results[design].append(league)
            if design == DESIGNS[-1]:
                each = ", ".join(f"{_games(results[d][-1].games, cap)} ({d})" for d in DESIGNS)
                say(f"league {len(results[design])} of {leagues}: sure after {each}")
    return LadderFigures(
        bots,
        leagues,
        cap,
        {d: tuple(results[d]) for d in DESIGNS},
        {d: _ratio(results[d], results[ROUND_ROBIN], cap, seed) for d in LADDERS},
        choose_ms(CHOOSE_FIELD, 200),
        time.perf_counter() - started,
    )


def _play_league(play: tuple[str, int, int, int, int]) -> League:
    design, bots, seed, number, cap = play
    return _League(design, bots, seed, number).run(cap)


class _League:
    def __init__(self, design: str, bots: int, seed: int, number: int) -> None:
        self.design = design
        self.noises = noises(bots)
        self.names = tuple(f"noise{n:.3f}" for n in self.noises)
        self.rng = random.Random(f"{seed}/{design}/{number}")
        self.dice = hashlib.sha256(f"bench-ladder/{seed}/{design}/{number}".encode()).digest()
        self.secret = hashlib.sha256(f"bench-ladder-secret/{seed}/{number}".encode()).digest()
        self.ruleset = engine.Ruleset(dice_per_player=DICE)
        self.online = [_TS.create_rating() for _ in self.noises]
        self.fitted = [FRESH] * bots
        """The batch fit's at the last look, as ratings; fresh until the first."""
        self.games = [0] * bots
        self.finished: list[Finish] = []
        self.reasons: Counter[str] = Counter()

    def run(self, cap: int) -> League:
        groups = self._round_robin() if self.design == ROUND_ROBIN else self._ladder()
        look_at = MIN_GROUPS * TABLE
        looks = number = 0
        while True:  # every design's groups go on for ever: the looks end a league
            for g, seats in enumerate(next(groups)):
                self._play(seats, f"t{number}", f"t{number}-r{g}")
            played = len(self.finished)
            if played >= look_at or played >= cap:
                looks += 1
                sure, right = self._look(looks)
                if sure or played >= cap:
                    mean = sum(self.games) / len(self.games)
                    return League(
                        played if sure else None,
                        right,
                        min(self.games) / mean,
                        dict(self.reasons),
                    )
                look_at = max(played + 1, math.ceil(played * LOOK_GROWTH))
            number += 1

    def _play(self, seats: tuple[int, ...], group: str, deal: str) -> None:
        order = play([self.noises[b] for b in seats], self.dice, deal, self.rng, self.ruleset)
        ranking = [seats[s] for s in order]
        self.finished.append(Finish(group, tuple(self.names[b] for b in ranking)))
        for b in seats:
            self.games[b] += 1
        if self.design == BY_TRUESKILL:  # no other design reads it: a fifth of their time
            rated = _TS.rate([(self.online[b],) for b in ranking], ranks=list(range(len(seats))))
            for b, (rating,) in zip(ranking, rated, strict=True):
                self.online[b] = rating

    def _look(self, number: int) -> tuple[bool, bool]:
        """Whether the bootstrap separates every adjacent pair, and the fitted order is true."""
        sure = confidence(self.finished, self.names, resamples=RESAMPLES, seed=number)
        self.fitted = [from_fit(b.strength, b.low, b.high, sure.level) for b in sure.bots]
        order = sorted(range(len(self.names)), key=lambda b: -sure.bots[b].strength)
        unseparated = sure.unseparated([self.names[b] for b in order])
        return not unseparated, order == list(range(len(self.names)))

    def _round_robin(self) -> Iterator[Group]:
        bots = range(len(self.noises))
        while True:
            unit = []
            for table in combinations(bots, TABLE):
                seated = tuple(self.rng.sample(table, TABLE))
                unit.append(tuple(seated[r:] + seated[:r] for r in range(TABLE)))
            self.rng.shuffle(unit)
            yield from unit

    def _ladder(self) -> Iterator[Group]:
        rules = Rules(sizes=(TABLE,))
        index = {name: b for b, name in enumerate(self.names)}
        counter = 0
        while True:
            if self.design == BY_TRUESKILL:
                ratings = [Rating(r.mu, r.sigma) for r in self.online]
            else:
                ratings = self.fitted
            field = [
                Entrant(name, rating, g)
                for name, rating, g in zip(self.names, ratings, self.games, strict=True)
            ]
            table = choose(field, rules, Draw(self.secret, counter))
            counter += 1
            self.reasons[table.reason.value] += 1
            yield tuple(tuple(index[n] for n in seats) for seats in table.rotations())


def choose_ms(entrants: int, tables: int) -> float:
    """The median milliseconds `choose` takes for a field of `entrants`, settled and spread."""
    rng = random.Random(7)
    field = [
        Entrant(f"bot{i:04d}", Rating(rng.gauss(25, 4), rng.uniform(0.7, 3)), rng.randint(50, 150))
        for i in range(entrants)
    ]
    rules = Rules(sizes=(2, 3, 4, 5, 6))
    times = []
    for counter in range(tables):
        started = time.perf_counter()
        choose(field, rules, Draw(b"bench-ladder-secret", counter))
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def _counted(leagues: Sequence[League], cap: int) -> list[int]:
    """Games per league, a league never sure counted at the cap (which flatters it)."""
    return [cap if x.games is None else x.games for x in leagues]


def _mean(leagues: Sequence[League], cap: int) -> float:
    return statistics.fmean(_counted(leagues, cap))


def _ratio(top: Sequence[League], bottom: Sequence[League], cap: int, seed: int) -> Ratio:
    a, b = _counted(top, cap), _counted(bottom, cap)
    rng = random.Random(seed)
    copies = sorted(
        statistics.fmean(rng.choices(a, k=len(a))) / statistics.fmean(rng.choices(b, k=len(b)))
        for _ in range(2000)
    )
    return Ratio(statistics.fmean(a) / statistics.fmean(b), copies[50], copies[1949])


def _games(games: int | None, cap: int) -> str:
    return f"> {cap:,}" if games is None else f"{games:,}"


def _key(design: str) -> str:
    return design.replace(", ", "_").replace(" ", "_").lower()


def report(f: LadderFigures) -> list[str]:
    """The figures side by side, as lines of plain text."""

    def row(title: str, cell: Callable[[tuple[League, ...]], str]) -> str:
        return f"{title:30}" + "".join(f"{cell(f.designs[d]):>22}" for d in DESIGNS)

    def spread(leagues: tuple[League, ...]) -> str:
        games = sorted(_counted(leagues, f.cap))
        return f"{statistics.median(games):,.0f} ({games[0]:,}-{games[-1]:,})"

    def right(leagues: tuple[League, ...]) -> str:
        sure = [x for x in leagues if x.games is not None]
        if not sure:
            return "-"
        hits = sum(x.right for x in sure)
        low, high = wilson(hits, len(sure))
        return f"{hits}/{len(sure)} ({100 * low:.0f}-{100 * high:.0f}%)"

    def reasons(leagues: tuple[League, ...]) -> str:
        total = sum((Counter(x.reasons) for x in leagues), Counter())
        tables = sum(total.values()) or 1
        return ", ".join(f"{r.value} {100 * total[r.value] / tables:.0f}%" for r in Reason)

    lines = [
        f"{f.bots} simulated bots (noise 0 to 1), tables of {TABLE}, {DICE} dice; "
        f"{f.leagues} leagues each way, in {f.seconds:.0f} s",
        "sure: the batch fit's bootstrap separates every adjacent pair at 95% "
        "(looked at as --until-confident looks)",
        "",
        f"{'':30}" + "".join(f"{d:>22}" for d in DESIGNS),
        row("games until sure, mean", lambda x: f"{_mean(x, f.cap):,.0f}"),
        row("  median (least-most)", spread),
        row(f"  not sure by {f.cap:,} games", lambda x: str(sum(y.games is None for y in x))),
        row("order then true (95% interval)", right),
        row("fewest games of a bot / mean", lambda x: f"{min(y.least_share for y in x):.2f}"),
        "",
    ]
    for d, r in f.ratios.items():
        lines.append(
            f"{d} / round robin games: {r.mean:.2f} (95% interval {r.low:.2f}-{r.high:.2f}); "
            f"the goal, at most {GOAL}: {r.verdict()}"
        )
    lines += [f"{d}'s tables, by why: {reasons(f.designs[d])}" for d in LADDERS]
    lines.append(f"choosing a table among {CHOOSE_FIELD} entrants: {f.choose_ms:.2f} ms (median)")
    return lines
