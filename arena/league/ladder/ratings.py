"""The ladder's ratings, one per version of each entrant.

A new version is a new bot as far as its strength goes: rated under its
entrant's name, its games would drag the old version's rating along slowly,
and its placement burst would never come (the entrant has played for weeks).
So the ladder rates each version apart, the version each game was played by
read from its round's `tournament.json` (the pins the round recorded, which
`arena verify` checks), in its folder or, folded, in its day's record, and a
version's first rating is its last version's mu with a widened sigma
(`arena.matchmaking.starting_rating`, which says why). A bot that dials in, not
submitted, is one version all along.

The ratings are made again from the games on record whenever they are asked
for, in the order the store keeps them: a server killed and started again
rates exactly as one that went on. A finished round's pins never change, so
they are read once, and forgotten once the board has rated the round for good.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator, Mapping, MutableSequence, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import overload

from arena.matchmaking import FRESH, Rating, starting_rating
from arena.records import GameLine
from arena.tournament.config import TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.report.ratings import Ratings, Standing, result_of
from arena.tournament.results.days import DayIndex
from arena.tournament.results.resuming import read_info


@dataclass(frozen=True, slots=True)
class Version:
    """One version of an entrant: its number, or None for a bot that dials in."""

    name: str
    number: int | None

    @property
    def label(self) -> str:
        """How the ladder's table names it: `name v3`, or the name alone for one dialled in."""
        return self.name if self.number is None else f"{self.name} v{self.number}"


class VersionRatings:
    """Rates the ladder's games per version (`rate`), reading each round's pins once."""

    def __init__(self, results: Path) -> None:
        self._results = results
        self._days = DayIndex(results)
        """Rounds folded into their days' records, their folders gone."""
        self._pins: dict[str, Mapping[str, int | None]] = {}
        """The version each entrant played, by finished round."""

    def versions_in(self, round_id: str) -> Mapping[str, int | None]:
        """Each entrant's version number in a round (None: it dialled in); {} for a round
        whose folder is gone or was never begun, whose games are then rated as dialled in."""
        if (kept := self._pins.get(round_id)) is not None:
            return kept
        try:
            info = read_info(self._results / round_id)
        except TournamentError:
            folded = self._days.find(round_id)
            if folded is None:
                return {}
            info = folded.info()
        pins = {
            name: entrant.version.number if entrant.version is not None else None
            for name, entrant in info.bots.items()
        }
        if info.status is RunStatus.FINISHED:
            self._pins[round_id] = pins
        return pins

    def forget(self, round_id: str) -> None:
        """A round rated for good: its pins are not kept (the ladder's record grows all day);
        asked again, they are read again."""
        self._pins.pop(round_id, None)

    def finished(self, round_id: str) -> bool:
        """Whether a round's folder says it finished: its games on record are all it has."""
        self.versions_in(round_id)
        return round_id in self._pins

    def labelled(self, lines: Iterable[tuple[str, GameLine]]) -> Labelled:
        """These games (round id, line), each seat named by its version's label."""
        out: list[tuple[str, GameLine]] = []
        versions: dict[str, Version] = {}
        for round_id, line in lines:
            pins = self.versions_in(round_id)
            labels = {}
            for name in line.players:
                version = Version(name, pins.get(name))
                labels[name] = version.label
                versions[version.label] = version
            out.append((round_id, _relabelled(line, labels)))
        return Labelled(out, versions)

    def rate(self, lines: Iterable[tuple[str, GameLine]]) -> Rated:
        """Every version's standing after these games (round id, line), in their order."""
        return self.labelled(lines).rated()


@dataclass(frozen=True, slots=True)
class Labelled:
    """Games with each seat named by its version's label, and the version of each label."""

    lines: list[tuple[str, GameLine]]
    versions: Mapping[str, Version]

    def rated(self) -> Rated:
        """Every version's standing after these games, in their order."""
        state = RatingState()
        state.add(self)
        return state.rated()


class RatingState:
    """Ratings as games are added, a version new to them starting from the last one of its
    entrant rated before it; each entrant's rating after each of its games, for its chart."""

    def __init__(self) -> None:
        self._ratings = Ratings()
        self._last: dict[str, Version] = {}
        """Each entrant's version rated most recently: the one a new version starts from."""
        self._paths: dict[str, MutableSequence[float]] = {}
        """By entrant: the conservative rating of the version that played, after each game
        added to this state (a copy's own games; its earlier ones are in `_base`)."""
        self._base: dict[str, tuple[Sequence[float], int]] = {}
        """A copy's paths as they were when it was made: each the original's list (which
        only grows) and its length then, shared rather than copied."""
        self._shared: set[str] = set()
        """Standings a copy and its original both hold, copied by whichever a game changes
        first: neither sees the other's games."""
        self._copy = False

    @classmethod
    def restored(
        cls,
        standings: dict[str, Standing],
        last: dict[str, Version],
        paths: dict[str, MutableSequence[float]],
    ) -> RatingState:
        """A state as `standings`, `last` and `paths` kept it (`snapshot`)."""
        state = cls()
        state._ratings.standings, state._last, state._paths = standings, last, paths
        return state

    def standings(self) -> Mapping[str, Standing]:
        """Each version's standing, by label."""
        return self._ratings.standings

    def last(self) -> Mapping[str, Version]:
        """Each entrant's version rated most recently."""
        return self._last

    @property
    def paths(self) -> RatingPaths:
        """By entrant: the conservative rating of the version that played, after each game."""
        return RatingPaths(self._base, self._paths)

    def add(self, games: Labelled) -> None:
        ratings = self._ratings
        for _, line in games.lines:
            for label in line.ranking:
                version = games.versions[label]
                if label in self._shared:  # the original's: copied before it changes
                    self._shared.discard(label)
                    s = ratings.standings[label]
                    ratings.standings[label] = dataclasses.replace(s, think=s.think.copy())
                if label not in ratings.standings:
                    start = _start(ratings, self._last.get(version.name))
                    ratings.begin(label, start.mu, start.sigma)
                self._last[version.name] = version
            ratings.add(result_of(line))
            for label in line.ranking:
                name = games.versions[label].name
                self._paths.setdefault(name, []).append(ratings.standings[label].conservative)

    def own_path(self, name: str) -> Sequence[float]:
        """An entrant's path as this state holds it, not a copy (an original's: a copy's
        is in two parts)."""
        assert not self._copy, "a copy's path is in two parts: ask its original"
        return self._paths[name]

    def copy(self) -> RatingState:
        """A state to add games to, this one untouched: the cost of its entrants and versions,
        not of their games (the standings are copied when a game changes them, the paths
        share this one's)."""
        if self._copy:
            raise ValueError("a copy of a copy: copy the original")
        copied = RatingState()
        copied._copy = True
        copied._ratings.standings = dict(self._ratings.standings)
        self._shared = set(self._ratings.standings)
        copied._shared = set(self._shared)
        copied._last = dict(self._last)
        copied._base = {name: (path, len(path)) for name, path in self._paths.items()}
        return copied

    def rated(self) -> Rated:
        return Rated(self._ratings, self._last)


class RatingPath(Sequence[float]):
    """An entrant's rating after each game: a prefix of a list that only grows, and the
    games after it, read in place rather than copied."""

    def __init__(self, base: Sequence[float], length: int, tail: Sequence[float]) -> None:
        self._base, self._length, self._tail = base, length, tail

    def __len__(self) -> int:
        return self._length + len(self._tail)

    @overload
    def __getitem__(self, index: int) -> float: ...
    @overload
    def __getitem__(self, index: slice) -> list[float]: ...
    def __getitem__(self, index: int | slice) -> float | list[float]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._base[index] if index < self._length else self._tail[index - self._length]

    def __iter__(self) -> Iterator[float]:
        return itertools.chain(itertools.islice(self._base, self._length), self._tail)


class RatingPaths(Mapping[str, Sequence[float]]):
    """Each entrant's `RatingPath`."""

    def __init__(
        self,
        base: Mapping[str, tuple[Sequence[float], int]],
        own: Mapping[str, Sequence[float]],
    ) -> None:
        self._base, self._own = base, own

    def __getitem__(self, name: str) -> Sequence[float]:
        if name not in self._base and name not in self._own:
            raise KeyError(name)
        base, length = self._base.get(name, ([], 0))
        return RatingPath(base, length, self._own.get(name, []))

    def __iter__(self) -> Iterator[str]:
        yield from self._base
        yield from (name for name in self._own if name not in self._base)

    def __len__(self) -> int:
        return len(self._base.keys() | self._own.keys())


def _relabelled(line: GameLine, labels: Mapping[str, str]) -> GameLine:
    if all(label == name for name, label in labels.items()):
        return line
    return dataclasses.replace(
        line,
        players=tuple(labels[n] for n in line.players),
        ranking=tuple(labels[n] for n in line.ranking),
        faults=tuple(dataclasses.replace(f, bot=labels.get(f.bot, f.bot)) for f in line.faults),
        think_ms={labels.get(n, n): ms for n, ms in line.think_ms.items()},
    )


def _start(ratings: Ratings, previous: Version | None) -> Rating:
    if previous is None:
        return FRESH
    standing = ratings.standings[previous.label]
    return starting_rating(Rating(standing.mu, standing.sigma))


class Rated:
    """The ratings of every version the ladder's games were played by."""

    def __init__(self, ratings: Ratings, last: Mapping[str, Version]) -> None:
        self._ratings = ratings
        self._last = last

    def of(self, version: Version) -> tuple[Rating, int]:
        """A version's rating and games; one not yet played is rated as it will start."""
        standing = self._ratings.standings.get(version.label)
        if standing is not None:
            return Rating(standing.mu, standing.sigma), standing.games
        previous = self._last.get(version.name)
        return _start(self._ratings, previous if previous != version else None), 0

    def current(self, playing: Mapping[str, Version]) -> list[tuple[Version, Standing]]:
        """The table of the ladder, best first: each entrant's version that plays now if it
        has played, else its version rated most recently; each standing under the entrant's
        name."""
        rows = []
        for name, version in self._last.items():
            now = playing.get(name)
            chosen = now if now is not None and now.label in self._ratings.standings else version
            standing = dataclasses.replace(self._ratings.standings[chosen.label], name=name)
            rows.append((chosen, standing))
        return sorted(rows, key=lambda r: (-r[1].conservative, -r[1].mu, r[1].name))
