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
    round_trip_ms: float | None = None
    """The bot's network round trip, the median over its games, read from the replays at the
    end of a run; None for a bot that does not answer the referee's pings. Its decision
    times are its own: any of it a lag allowance credited is not in them."""
    rank_range: str | None = None
    """The ranks the batch fit's bootstrap gives the bot at 95%, e.g. "1-2"; None (and left
    out of the JSON) where no fit was made, as in leaderboards written before there was one."""
    p_first: float | None = None
    """The bootstrap's chance that the bot is the strongest."""
    strength: float | None = None
    """The batch Plackett-Luce strength (log scale, the field's average at 0)..."""
    strength_low: float | None = None
    strength_high: float | None = None
    """... and its 95% interval."""

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
            "rank_range": self.rank_range,
            "p_first": self.p_first,
            "strength": self.strength,
            "strength_low": self.strength_low,
            "strength_high": self.strength_high,
            "p99_decision_ms": self.p99_decision_ms,
            "slowest_decision_ms": self.slowest_decision_ms,
            "round_trip_ms": self.round_trip_ms,
        }
        return {key: value for key, value in data.items() if value is not None}

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
            round_trip_ms=fields.optional("round_trip_ms", number),
            rank_range=fields.optional("rank_range", string),
            p_first=fields.optional("p_first", number),
            strength=fields.optional("strength", number),
            strength_low=fields.optional("strength_low", number),
            strength_high=fields.optional("strength_high", number),
        )
        fields.done()
        return row
