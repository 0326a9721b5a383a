"""A bot's row on a leaderboard, in the one JSON form every leaderboard is given in."""

from __future__ import annotations

from dataclasses import dataclass

from arena.records.fields import Fields, Json, integer, number, string


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    """A bot's place on a leaderboard, as leaderboard.json, `arena leaderboard --json` and the
    admin stream give it: figures rounded for people, not for rating again."""

    rank: int
    bot: str
    mu: float
    sigma: float
    rating: float
    """The conservative rating, mu - 3 sigma, that the table is sorted by."""
    games: int
    wins: int
    win_rate: float
    average_place: float
    faults: int
    median_decision_ms: float
    p99_decision_ms: float | None = None
    slowest_decision_ms: float | None = None
    """Read from the replays at the end of a run (a league's standings have neither)."""

    def to_json(self) -> Json:
        data: Json = {
            "rank": self.rank,
            "bot": self.bot,
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.rating,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "average_place": self.average_place,
            "faults": self.faults,
            "median_decision_ms": self.median_decision_ms,
        }
        if self.p99_decision_ms is not None and self.slowest_decision_ms is not None:
            data["p99_decision_ms"] = self.p99_decision_ms
            data["slowest_decision_ms"] = self.slowest_decision_ms
        return data

    @classmethod
    def from_json(cls, data: object) -> LeaderboardRow:
        fields = Fields(data, "a leaderboard row")
        row = cls(
            rank=fields.get("rank", integer, 0),
            bot=fields.get("bot", string, ""),
            mu=fields.get("mu", number, 0.0),
            sigma=fields.get("sigma", number, 0.0),
            rating=fields.get("rating", number, 0.0),
            games=fields.get("games", integer, 0),
            wins=fields.get("wins", integer, 0),
            win_rate=fields.get("win_rate", number, 0.0),
            average_place=fields.get("average_place", number, 0.0),
            faults=fields.get("faults", integer, 0),
            median_decision_ms=fields.get("median_decision_ms", number, 0.0),
            p99_decision_ms=fields.optional("p99_decision_ms", number),
            slowest_decision_ms=fields.optional("slowest_decision_ms", number),
        )
        fields.done()
        return row
