"""TrueSkill ratings from finishing orders, and the leaderboard built on them.

Each game is one free-for-all match: the finishing order gives the ranks,
and there are no draws. Ratings depend on the order games are rated in, so a
final leaderboard always rates games in schedule order: a run that was
interrupted and resumed ends exactly where an uninterrupted one would.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import trueskill

from arena.records import GameLine, LeaderboardRow
from arena.tournament.report.median import Median

if TYPE_CHECKING:  # the fit's numpy and scipy stay out of what the league store loads
    from arena.rankings import BotConfidence

_ENV = trueskill.TrueSkill(draw_probability=0.0)


@dataclass(frozen=True, slots=True)
class GameResult:
    """What rating needs of one game."""

    ranking: tuple[str, ...]
    """Bot names, winner first."""
    faults: dict[str, int] = field(default_factory=dict)
    think_ms: dict[str, float] = field(default_factory=dict)
    """Each bot's median decision time in this game."""


def result_of(line: GameLine) -> GameResult:
    """What rating needs of one line of `games.jsonl`: kept here so that the league
    store can rate games without loading the referee."""
    return GameResult(line.ranking, line.fault_counts(), dict(line.think_ms))


@dataclass
class Standing:
    name: str
    mu: float = _ENV.mu
    sigma: float = _ENV.sigma
    games: int = 0
    wins: int = 0
    place_sum: int = 0
    faults: int = 0
    think: Median = field(default_factory=Median)
    """Its decision times (each game's median), kept so that their median costs nothing to
    ask (`Median`): a ladder's version plays all season."""

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average_place(self) -> float:
        return self.place_sum / self.games if self.games else 0.0

    @property
    def median_think_ms(self) -> float:
        return self.think.median()

    def row(self, rank: int, sure: BotConfidence | None = None) -> LeaderboardRow:
        """The bot's row, with what the batch fit's bootstrap says of it when `sure` is given."""
        return LeaderboardRow(
            rank=rank,
            bot=self.name,
            mu=round(self.mu, 3),
            sigma=round(self.sigma, 3),
            rating=round(self.conservative, 3),
            games=self.games,
            wins=self.wins,
            win_rate=round(self.win_rate, 4),
            average_place=round(self.average_place, 3),
            faults=self.faults,
            median_decision_ms=round(self.median_think_ms, 3),
            rank_range=sure.rank_range if sure else None,
            p_first=round(sure.p_first, 4) if sure else None,
            strength=round(sure.strength, 4) if sure else None,
            strength_low=round(sure.low, 4) if sure else None,
            strength_high=round(sure.high, 4) if sure else None,
        )

    @classmethod
    def from_row(cls, row: LeaderboardRow) -> Standing:
        """A standing as a leaderboard shows it (one median for all its decision times)."""
        return cls(
            name=row.bot,
            mu=row.mu,
            sigma=row.sigma,
            games=row.games,
            wins=row.wins,
            place_sum=round(row.average_place * row.games),
            faults=row.faults,
            think=Median([row.median_decision_ms] if row.games else []),
        )


class Ratings:
    """Standings updated one game at a time."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.standings: dict[str, Standing] = {n: Standing(n) for n in names}

    def begin(self, name: str, mu: float, sigma: float) -> None:
        """A player new to these standings starts at this rating, not TrueSkill's default
        (a ladder's new version starts from its last)."""
        assert name not in self.standings, f"{name} is already rated"
        self.standings[name] = Standing(name, mu, sigma)

    def add(self, game: GameResult) -> None:
        players = [self.standings.setdefault(n, Standing(n)) for n in game.ranking]
        groups = [(_ENV.create_rating(p.mu, p.sigma),) for p in players]
        rated = _ENV.rate(groups, ranks=list(range(len(players))))
        for place, (player, (rating,)) in enumerate(zip(players, rated, strict=True), start=1):
            player.mu, player.sigma = rating.mu, rating.sigma
            player.games += 1
            player.place_sum += place
            player.wins += place == 1
            player.faults += game.faults.get(player.name, 0)
            if player.name in game.think_ms:
                player.think.append(game.think_ms[player.name])

    def table(self) -> list[Standing]:
        """Best first: by conservative rating, then mean."""
        return sorted(self.standings.values(), key=lambda s: (-s.conservative, -s.mu, s.name))


def rate_all(games: Sequence[GameResult], names: Iterable[str] = ()) -> Ratings:
    ratings = Ratings(names)
    for game in games:
        ratings.add(game)
    return ratings
