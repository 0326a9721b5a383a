"""An author's games through a season: which version played each, filtered, paged, and
summed up against each opponent.

Every game is labelled with the version of the author's bot that played it,
read from the pins its tournament recorded (`tournament.json`'s
`Entrant.version`, which the league store keeps with the tournament): a
night's and a ladder round's alike, so the label is what `arena verify`
checks, never a guess from the game's date. The list is made once per
change of the league (`AuthorGames`), and a page of it is then a filter and
a slice: an author of ten thousand games gets a page in milliseconds, and
the page holds at most PAGE_SIZE rows however long the season.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from arena.errors import ArenaError
from arena.protocol.faults import FaultKind, FaultRecord
from arena.rankings.cross import wilson  # the cross-table's interval, the same for one author
from arena.records import GameLine

PAGE_SIZE = 50
"""Games on one page at most."""
RESULTS = ("won", "lost")
"""The results a filter may ask for: finished first, or not."""
ANY_FAULT = "any"
"""The fault filter's word for a game with a fault of any kind."""
NO_FAULT = "none"
"""The fault filter's word for a game without a fault of the author's."""


class GameFilterError(ArenaError, ValueError):
    """A filter's query parameter that means nothing: the message says which and why."""


@dataclass(frozen=True, slots=True)
class AuthorGame:
    """One game the author's bot played, as its page lists it."""

    tournament: str
    game: str
    version: int | None
    """The version that played it; None for a bot not submitted (or a tournament from
    before versions were pinned)."""
    players: tuple[str, ...]
    ranking: tuple[str, ...]
    """Winner first."""
    place: int
    """The author's place, 1 for the winner."""
    faults: tuple[FaultRecord, ...]
    """The author's own faults in it, in the order they came."""
    started: float | None

    def opponents(self, name: str) -> tuple[str, ...]:
        return tuple(p for p in self.players if p != name)

    def ahead_of(self, name: str, other: str) -> bool:
        """Whether `name` finished ahead of `other` in this game."""
        return self.ranking.index(name) < self.ranking.index(other)


@dataclass(frozen=True, slots=True)
class GameFilter:
    """What the author asked to see: each None field keeps every game."""

    version: int | None = None
    opponent: str | None = None
    result: str | None = None
    """"won" or "lost"."""
    fault: str | None = None
    """A FaultKind's value, ANY_FAULT or NO_FAULT."""
    page: int = 1

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> GameFilter:
        """The filter a page's query parameters ask for (an empty one keeps all); a
        GameFilterError naming a parameter that means nothing."""
        version = _number(query, "version", 1)
        page = _number(query, "page", 1)
        result = query.get("result") or None
        if result is not None and result not in RESULTS:
            raise GameFilterError(f"result={result!r} is none of {', '.join(RESULTS)}")
        fault = query.get("fault") or None
        kinds = {kind.value for kind in FaultKind} | {ANY_FAULT, NO_FAULT}
        if fault is not None and fault not in kinds:
            raise GameFilterError(f"fault={fault!r} is none of {', '.join(sorted(kinds))}")
        opponent = query.get("opponent") or None
        return cls(version, opponent, result, fault, page or 1)

    def keeps(self, game: AuthorGame) -> bool:
        if self.version is not None and game.version != self.version:
            return False
        if self.opponent is not None and self.opponent not in game.players:
            return False
        if self.result is not None and (game.place == 1) != (self.result == "won"):
            return False
        if self.fault == NO_FAULT:
            return not game.faults
        if self.fault == ANY_FAULT:
            return bool(game.faults)
        return self.fault is None or any(f.fault.kind.value == self.fault for f in game.faults)

    def query(self, **changes: Any) -> str:
        """This filter as a query string, with `changes` (a page's links to the next)."""
        wanted = replace(self, **changes)
        pairs = [
            (key, str(value))
            for key, value in (
                ("version", wanted.version),
                ("opponent", wanted.opponent),
                ("result", wanted.result),
                ("fault", wanted.fault),
                ("page", wanted.page if wanted.page > 1 else None),
            )
            if value is not None
        ]
        return "?" + urlencode(pairs) if pairs else ""


def _number(query: Mapping[str, str], key: str, least: int) -> int | None:
    said = query.get(key) or None
    if said is None:
        return None
    if not said.isdigit() or int(said) < least:
        raise GameFilterError(f"{key}={said!r} is not a whole number from {least} up")
    return int(said)


@dataclass(frozen=True, slots=True)
class Page:
    """One page of the games a filter keeps, newest first."""

    games: tuple[AuthorGame, ...]
    kept: int
    """Games the filter keeps, on every page."""
    number: int
    pages: int


def paged(games: Sequence[AuthorGame], wanted: GameFilter, size: int = PAGE_SIZE) -> Page:
    kept = [game for game in games if wanted.keeps(game)]
    pages = max(1, math.ceil(len(kept) / size))
    number = min(wanted.page, pages)
    start = (number - 1) * size
    return Page(tuple(kept[start : start + size]), len(kept), number, pages)


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """The author's games against one opponent, and how often it finished ahead."""

    opponent: str
    games: int
    ahead: int
    low: float
    high: float
    """The 95% Wilson interval of the share finished ahead."""

    @property
    def share(self) -> float:
        return self.ahead / self.games if self.games else 0.0


Tally = dict[str, tuple[int, int]]
"""By opponent: games against it, and games finished ahead of it."""


def tally(name: str, games: Sequence[AuthorGame]) -> Tally:
    met: Tally = {}
    for game in games:
        for other in game.opponents(name):
            n, k = met.get(other, (0, 0))
            met[other] = (n + 1, k + game.ahead_of(name, other))
    return met


def table(tallies: Sequence[Tally]) -> list[HeadToHead]:
    """The head-to-head rows of tallies summed (one per tournament, say), the opponent met
    most first."""
    met: Tally = {}
    for counted in tallies:
        for other, (n, k) in counted.items():
            m, j = met.get(other, (0, 0))
            met[other] = (m + n, j + k)
    rows = [HeadToHead(other, n, k, *wilson(k, n)) for other, (n, k) in met.items()]
    return sorted(rows, key=lambda row: (-row.games, row.opponent))


def head_to_head(name: str, games: Sequence[AuthorGame]) -> list[HeadToHead]:
    """Against each opponent met (the most met first): games, and finished ahead of it."""
    return table([tally(name, games)])


def pinned_versions(infos: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, dict[str, int]]:
    """Each tournament's pinned version of each entrant, from the infos the league store
    keeps (`tournament.json` as it was recorded); a bot not pinned is left out."""
    pinned: dict[str, dict[str, int]] = {}
    for tid, info in infos:
        bots = info.get("bots")
        versions: dict[str, int] = {}
        for bot, entrant in bots.items() if isinstance(bots, dict) else ():
            pin = entrant.get("version") if isinstance(entrant, dict) else None
            if isinstance(pin, dict) and isinstance(pin.get("number"), int):
                versions[str(bot)] = pin["number"]
        pinned[tid] = versions
    return pinned


def author_games(
    lines: Sequence[tuple[str, GameLine]], pinned: Mapping[str, Mapping[str, int]], name: str
) -> list[AuthorGame]:
    """The games `name` played and finished, newest first, each with its version."""
    played = [
        AuthorGame(
            tid,
            line.game,
            pinned.get(tid, {}).get(name),
            line.players,
            line.ranking,
            line.ranking.index(name) + 1,
            tuple(f for f in line.faults if f.bot == name),
            line.started,
        )
        for tid, line in lines
        if name in line.players and name in line.ranking
    ]
    return played[::-1]
