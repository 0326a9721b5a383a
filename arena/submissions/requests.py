"""An author's request for test games, judged: which versions it seats, or why it is refused.

A request names the author's version (its playing one by default) and its opponents, each
"NAME" (the version that plays now) or "NAME@VERSION", and is refused, with what to do,
for an opponent or a version the league does not have, a table no game can seat, too many
games, one still waiting or playing, or the daily quota. The quota is the organiser's
(`arena serve --requests-per-day`): a rolling day of the requests the store holds, so a
restart forgives nothing, and the refusal says when the next one frees.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from arena.errors import ArenaError
from arena.store import LeagueStore
from arena.store.requests import PlayedGame, RequestRow, RequestState
from arena.store.submissions import SubmissionRow
from arena.text import short_name
from arena.tournament.kinds import MAX_TABLE

DAY = 86400.0


class RequestRefusedError(ArenaError):
    """A request for test games that cannot be taken; the message says why and what to do."""


@dataclass(frozen=True, slots=True)
class RequestLimits:
    per_day: int = 20
    """Requests an author may make in any 24 hours (`--requests-per-day`)."""
    max_games: int = 12
    """The most games one request may ask for (`--request-max-games`)."""

    def describe(self) -> str:
        return (
            f"test games: at most {self.per_day} requests a day per author, "
            f"{self.max_games} games each"
        )


@dataclass(frozen=True, slots=True)
class Asked:
    """A request judged playable: the versions at its table, the author first."""

    seats: dict[str, SubmissionRow]
    games: int
    """The games asked for, rounded up to whole rotations (each entrant in each seat)."""


def parse_opponent(text: str) -> tuple[str, int | None]:
    """ "NAME" or "NAME@VERSION" as a name and a version (None: the one that plays)."""
    name, at, number = text.strip().partition("@")
    if not name or (at and not (number.isdigit() and int(number) > 0)):
        raise RequestRefusedError(
            f"{short_name(text)} is no opponent: write NAME or NAME@VERSION, e.g. alice@3"
        )
    return name, int(number) if at else None


def judge(
    store: LeagueStore,
    limits: RequestLimits,
    name: str,
    version: int | None,
    against: Sequence[str],
    games: int,
    now: float | None = None,
) -> Asked:
    """The versions `name`'s request seats, or a RequestRefusedError saying why not."""
    if not against:
        raise RequestRefusedError("name at least one opponent (--against NAME or NAME@VERSION)")
    if len(against) + 1 > MAX_TABLE:
        raise RequestRefusedError(f"a table seats at most {MAX_TABLE}: name up to {MAX_TABLE - 1}")
    if not 1 <= games <= limits.max_games:
        raise RequestRefusedError(
            f"ask for 1 to {limits.max_games} games (--request-max-games), not {games}"
        )
    _quota(store, limits, name, time.time() if now is None else now)
    seats = {name: _version(store, name, version, name)}
    for text in against:
        opponent, number = parse_opponent(text)
        if opponent == name:
            raise RequestRefusedError("your own versions cannot share a table: name other entrants")
        if opponent in seats:
            raise RequestRefusedError(f"{short_name(opponent)} is named twice: one seat each")
        seats[opponent] = _version(store, opponent, number, name)
    size = len(seats)
    return Asked(seats, size * math.ceil(games / size))


def _version(store: LeagueStore, name: str, number: int | None, author: str) -> SubmissionRow:
    """The version of `name` that plays in the request: `number`, or its playing one."""
    if name not in store.entrants():
        known = ", ".join(sorted(store.playing_versions())) or "none yet"
        raise RequestRefusedError(
            f"this league has no entrant {short_name(name)} (entrants with a version: {known})"
        )
    if number is None:
        row = store.playing_versions([name]).get(name)
        if row is None:
            raise RequestRefusedError(
                "you have no accepted version that plays: submit one first"
                if name == author
                else f"{name} has no accepted version that plays: name another opponent"
            )
        return row
    row = store.version_of(name, number)
    if row is None or not row.playable:
        playable = [r.version for r in store.submissions(name) if r.playable]
        listed = ", ".join(str(v) for v in sorted(v for v in playable if v)) or "none"
        raise RequestRefusedError(
            f"{name} has no version {number} that can play (its versions: {listed})"
        )
    return row


def _quota(store: LeagueStore, limits: RequestLimits, name: str, now: float) -> None:
    if limits.per_day == 0:
        raise RequestRefusedError(
            "this league server takes no requests for test games (--requests-per-day 0)"
        )
    mine = store.requests(name)
    waiting = [r for r in mine if r.state in (RequestState.QUEUED, RequestState.PLAYING)]
    if waiting:
        raise RequestRefusedError(
            f"one request at a time per author: {waiting[0].uid} is still "
            f"{waiting[0].state.value}; wait for its outcome"
        )
    today = [r for r in mine if r.counts and r.requested > now - DAY]
    if len(today) >= limits.per_day:
        frees = min(r.requested for r in today) + DAY
        at = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(frees))
        raise RequestRefusedError(
            f"at most {limits.per_day} requests for test games a day per author "
            f"(--requests-per-day): {name} has made {len(today)} in the last 24 hours; "
            f"the next frees at {at}"
        )


def left_today(store: LeagueStore, limits: RequestLimits, name: str, now: float) -> int:
    """Requests `name` may still make in the 24 hours to `now`."""
    today = [r for r in store.requests(name) if r.counts and r.requested > now - DAY]
    return max(0, limits.per_day - len(today))


def seats_of(row: RequestRow) -> list[str]:
    """A request's table as "NAME@VERSION", the author first."""
    return [f"{n}@{v}" for n, v in row.seats]


class Desk(Protocol):
    """Where requests are taken and played (the league server's `RequestGames`): what the
    service and the author's page see of it."""

    limits: RequestLimits

    @property
    def store(self) -> LeagueStore: ...

    def ask(
        self, name: str, version: int | None, against: list[str], games: int, now: float
    ) -> RequestRow: ...

    def ahead_of(self, uid: str) -> int: ...

    def follow(
        self, uid: str, listener: Callable[[PlayedGame | RequestRow], None]
    ) -> Callable[[], None]: ...


@dataclass(frozen=True, slots=True)
class Score:
    """The author against one opponent over a request's games."""

    opponent: str
    """As "NAME@VERSION"."""
    games: int
    ahead: int
    """Games the author finished ahead of it."""


def scores(row: RequestRow) -> list[Score]:
    """The author against each opponent, over the games played."""
    author = row.name
    found = []
    for name, version in row.seats[1:]:
        together = [g.ranking for g in row.played if author in g.ranking and name in g.ranking]
        ahead = sum(r.index(author) < r.index(name) for r in together)
        found.append(Score(f"{name}@{version}", len(together), ahead))
    return found


def places(row: RequestRow) -> list[int]:
    """The author's place in each game played (1: first)."""
    return [g.ranking.index(row.name) + 1 for g in row.played if row.name in g.ranking]
