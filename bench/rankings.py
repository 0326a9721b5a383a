"""`arena bench rankings`: how many games each way of ranking needs, measured.

Simulated tournaments of in-process bots of known strength (`simulated`:
one policy, graded by noise) are played unit by unit, as `arena run` plays
them: every table of the field in every seat rotation, the unit's games
shuffled. After each unit every method gives its order:

- the batch Plackett-Luce fit (arena.rankings), and online TrueSkill rated in
  the order played, each on fresh dice per game, and on one deal played at
  two disjoint tables (the unit's tables paired with their complements, so no
  bot sees a deal twice);
- "right at 95%": the fewest games after which a method's order is the true
  one in at least 95% of the simulated tournaments;
- "sure": when a method itself first says every adjacent pair is separated
  at 95% (the bootstrap for the fit, Phi((mu_a - mu_b) / sqrt(sigma_a^2 +
  sigma_b^2)) for TrueSkill), and how often the order it was then sure of was
  wrong;
- honesty: how often the bootstrap's 95% interval at the end holds the true
  strength, which is the fit on every fresh-dice game of the run pooled.

Games are played with 3 dice each (not the rulebook's 5) so that a run of
many tournaments fits in two minutes on a busy machine.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import combinations, pairwise

import numpy as np
import trueskill

import engine
from arena.rankings import Finish, confidence
from arena.rankings.fit import Orders, fit, fit_weighted
from bench.simulated import play

NOISES = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
"""The field: bot i decides at random with probability NOISES[i]; the order is theirs."""
TABLE = 3
DICE = 3
LOOK_EVERY = 2
"""Units between two looks: each look refits every method, and a look per unit would
cost as much as the games."""
_TS = trueskill.TrueSkill(draw_probability=0.0)
METHODS = ("batch fit", "TrueSkill")

Groups = dict[str, list[tuple[tuple[int, ...], str]]]
"""A group's name, and its games: the bots by seat, and the deal's key."""


@dataclass(frozen=True, slots=True)
class Design:
    name: str
    disjoint: bool


DESIGNS = (Design("fresh dice", False), Design("disjoint deals", True))


@dataclass
class Track:
    """one method on one design: per look, in how many tournaments it was right."""

    right: list[int] = field(default_factory=list)
    sure_at: list[int | None] = field(default_factory=list)
    """Per tournament: games when it first was sure, None if never."""
    sure_wrong: int = 0

    def tick(self, look: int, right: bool) -> None:
        if len(self.right) <= look:
            self.right.append(0)
        self.right[look] += right

    def wrong_share(self) -> float:
        """Of the tournaments in which the method became sure, those it was wrong in."""
        sure = sum(x is not None for x in self.sure_at)
        return self.sure_wrong / sure if sure else 0.0


@dataclass(frozen=True, slots=True)
class RankingFigures:
    tournaments: int
    games_per_unit: int
    units: int
    right_at_95: dict[str, dict[str, int | None]]
    """Design, then method: the fewest games to be right in 95% of tournaments."""
    sure_median: dict[str, dict[str, float | None]]
    sure_wrong: dict[str, dict[str, float]]
    coverage: dict[str, float]
    """Design: the share of the 95% intervals that held the true strength."""
    true_order_is_noise_order: bool
    """Whether the pooled fit (the true strengths) orders the bots by their noise."""
    seconds: float
    games_played: int

    def lines(self) -> list[str]:
        return report(self)

    def to_json(self) -> dict[str, object]:
        return {
            "tournaments": self.tournaments,
            "games_per_unit": self.games_per_unit,
            "units": self.units,
            "right_at_95": self.right_at_95,
            "sure_median": self.sure_median,
            "sure_wrong": self.sure_wrong,
            "coverage": self.coverage,
            "true_order_is_noise_order": self.true_order_is_noise_order,
            "seconds": round(self.seconds, 1),
            "games_played": self.games_played,
        }


def unit_groups(bots: Sequence[int], rng: random.Random, disjoint: bool, unit: int) -> Groups:
    """One unit's rotation groups, the arena's way: every table in every seat rotation.

    With disjoint deals a table and its complement (they share no bot) play the same
    deal in each rotation, so the two tables are one group: their games are linked."""
    groups: Groups = {}
    for t, table in enumerate(combinations(bots, TABLE)):
        seated = tuple(rng.sample(table, TABLE))
        rest = tuple(sorted(set(bots) - set(table)))
        pair = min(tuple(sorted(table)), rest)
        deal = f"u{unit}-d{'-'.join(map(str, pair))}" if disjoint else f"u{unit}-t{t}"
        for r in range(TABLE):
            groups.setdefault(deal, []).append((seated[r:] + seated[:r], f"{deal}-r{r}"))
    return groups


def _trueskill_order(ratings: list[trueskill.Rating]) -> tuple[list[int], bool]:
    order = sorted(range(len(ratings)), key=lambda i: -(ratings[i].mu - 3 * ratings[i].sigma))
    sure = all(
        _phi((ratings[a].mu - ratings[b].mu) / math.hypot(ratings[a].sigma, ratings[b].sigma))
        >= 0.95
        for a, b in pairwise(order)
    )
    return order, sure


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2))


def run_rankings(
    tournaments: int, units: int, resamples: int, seed: int, say: Callable[[str], None]
) -> RankingFigures:
    """Play `tournaments` simulated tournaments of `units` units in each design, and measure."""
    started = time.perf_counter()
    names = tuple(f"noise{n:.1f}" for n in NOISES)
    tracks = {(d.name, m): Track() for d in DESIGNS for m in METHODS}
    ends: dict[str, list[list[Finish]]] = {d.name: [] for d in DESIGNS}
    for design in DESIGNS:
        for t in range(tournaments):
            night = _Night(design, names, seed, t, resamples)
            for u in range(units):
                night.play_unit(u)
                if (u + 1) % LOOK_EVERY == 0 or u + 1 == units:
                    batch, online = (tracks[design.name, m] for m in METHODS)
                    night.look(batch, online, u // LOOK_EVERY)
            for m in METHODS:
                tracks[design.name, m].sure_at.append(night.sure_at[m])
            ends[design.name].append(night.finished)
        say(f"{design.name}: {tournaments} tournaments of {units} units played")
    # The true strengths: the fit on every fresh-dice game of the run, pooled.
    pooled = [f.order for finished in ends[DESIGNS[0].name] for f in finished]
    truth = fit(Orders.of(names, pooled))
    coverage: dict[str, float] = {}
    for name, nights in ends.items():
        held = [
            b.low <= truth[i] <= b.high
            for t, finished in enumerate(nights)
            for i, b in enumerate(confidence(finished, names, seed=t).bots)
        ]
        coverage[name] = sum(held) / len(held)
    per_unit = math.comb(len(NOISES), TABLE) * TABLE
    return RankingFigures(
        tournaments,
        per_unit,
        units,
        {
            d.name: {
                m: _first_95(tracks[d.name, m].right, tournaments, per_unit, units) for m in METHODS
            }
            for d in DESIGNS
        },
        {d.name: {m: _median(tracks[d.name, m].sure_at) for m in METHODS} for d in DESIGNS},
        {d.name: {m: tracks[d.name, m].wrong_share() for m in METHODS} for d in DESIGNS},
        coverage,
        [int(i) for i in np.argsort(-truth)] == list(range(len(NOISES))),
        time.perf_counter() - started,
        sum(len(f) for nights in ends.values() for f in nights),
    )


class _Night:
    """One simulated tournament, played unit by unit, with TrueSkill rated as it goes."""

    def __init__(
        self, design: Design, names: tuple[str, ...], seed: int, number: int, resamples: int
    ) -> None:
        self.design = design
        self.names = names
        self.resamples = resamples
        self.rng = random.Random(f"{seed}/{design.name}/{number}")
        # Both designs of a number share a dice seed; the deal keys differ.
        self.dice = hashlib.sha256(f"bench-rankings/{seed}/{number}".encode()).digest()
        self.ratings = [_TS.create_rating() for _ in names]
        self.finished: list[Finish] = []
        self.sure_at: dict[str, int | None] = dict.fromkeys(METHODS)
        self.ruleset = engine.Ruleset(dice_per_player=DICE)

    def play_unit(self, unit: int) -> None:
        bots = range(len(self.names))
        groups = unit_groups(bots, self.rng, self.design.disjoint, unit)
        games = [(group, game) for group, members in groups.items() for game in members]
        self.rng.shuffle(games)
        for group, (seated, deal) in games:
            noises = [NOISES[b] for b in seated]
            order = play(noises, self.dice, deal, self.rng, self.ruleset)
            ranking = [seated[s] for s in order]
            self.finished.append(Finish(group, tuple(self.names[b] for b in ranking)))
            rated = _TS.rate([(self.ratings[b],) for b in ranking], ranks=list(range(TABLE)))
            for b, (rating,) in zip(ranking, rated, strict=True):
                self.ratings[b] = rating

    def look(self, batch: Track, online: Track, number: int) -> None:
        """Each method's order now, whether it is the true one, and whether it is sure."""
        true = list(range(len(self.names)))
        orders = Orders.of(self.names, [f.order for f in self.finished])
        # choix's fit, done the vectorised way (the same figures, tests/arena/rankings)
        strengths = fit_weighted(orders, np.ones((1, len(self.finished))))[0]
        fitted = sorted(true, key=lambda b: -strengths[b])
        rated, rated_sure = _trueskill_order(self.ratings)
        batch.tick(number, fitted == true)
        online.tick(number, rated == true)
        games = len(self.finished)
        if self.sure_at["TrueSkill"] is None and rated_sure:
            self.sure_at["TrueSkill"] = games
            online.sure_wrong += rated != true
        if self.sure_at["batch fit"] is None:
            sure = confidence(self.finished, self.names, resamples=self.resamples, seed=number)
            if not sure.unseparated([self.names[b] for b in fitted]):
                self.sure_at["batch fit"] = games
                batch.sure_wrong += fitted != true


def _first_95(right: list[int], tournaments: int, per_unit: int, units: int) -> int | None:
    """The games at the first look at which at least 95% of the tournaments were right."""
    for look, count in enumerate(right):
        if count >= 0.95 * tournaments:
            return min(units, (look + 1) * LOOK_EVERY) * per_unit
    return None


def _median(values: list[int | None]) -> float | None:
    """The median games to be sure, a tournament never sure counting as more than any."""
    ranked = sorted(values, key=lambda v: math.inf if v is None else v)
    middle = ranked[len(ranked) // 2]
    return None if middle is None else float(middle)


def report(f: RankingFigures) -> list[str]:
    """The figures side by side, as lines of plain text."""
    most = f.units * f.games_per_unit
    fresh, disjoint = (d.name for d in DESIGNS)

    def games(value: float | None) -> str:
        return f"> {most:,}" if value is None else f"{value:,.0f}"

    def ratio(top: float | None, bottom: float | None) -> str:
        return "-" if top is None or bottom is None else f"{top / bottom:.2f}"

    lines = [
        f"{len(NOISES)} simulated bots (noise {NOISES[0]:g} to {NOISES[-1]:g}), tables of "
        f"{TABLE}, {DICE} dice; {f.tournaments} tournaments of up to {most:,} games "
        f"({f.units} units of {f.games_per_unit}) per design; {f.games_played:,} games "
        f"in {f.seconds:.0f} s",
        "",
        "Games until the order is right in 95% of tournaments:",
        f"  {'':24}{fresh:>12}{disjoint:>16}{'disjoint/fresh':>16}",
    ]
    right = f.right_at_95
    for m in METHODS:
        a, b = right[fresh][m], right[disjoint][m]
        lines.append(f"  {m:24}{games(a):>12}{games(b):>16}{ratio(b, a):>16}")
    lines.append(
        f"  {'TrueSkill / batch fit':24}"
        f"{ratio(right[fresh]['TrueSkill'], right[fresh]['batch fit']):>12}"
        f"{ratio(right[disjoint]['TrueSkill'], right[disjoint]['batch fit']):>16}"
    )
    lines += [
        "",
        "Games until the method says every adjacent pair is separated at 95% (median),",
        "and the share of the sure orders that were wrong:",
    ]
    for m, how in zip(METHODS, ("bootstrap", "own sigma"), strict=True):
        cells = [
            f"{games(f.sure_median[d][m])} ({100 * f.sure_wrong[d][m]:.0f}% wrong)"
            for d in (fresh, disjoint)
        ]
        lines.append(f"  {m + ' (' + how + ')':24}{cells[0]:>18}{cells[1]:>22}")
    lines += [
        "",
        f"95% intervals holding the true strength: {100 * f.coverage[fresh]:.1f}% ({fresh}), "
        f"{100 * f.coverage[disjoint]:.1f}% ({disjoint})",
        "True strength: the batch fit on every fresh-dice game of the run pooled; it orders "
        f"the bots by noise: {'yes' if f.true_order_is_noise_order else 'NO'}",
    ]
    return lines
