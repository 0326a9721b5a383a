"""The ladder's games as the batch fit needs them: each game's rotation group and finishing
order, every seat named by its version's label, kept as the board reads them.

The board reads each round's games from the league store once, as it rates them (`board`);
the fit is fed from what it read, not from a read of its own. So the settled rounds' games
are kept beside their ratings, and go into the board's snapshot with them (`snapshot`), so
a server started again has the fit's games without reading the season.

They are kept as numbers in arrays (a label's number a seat, a group's a game) and the
groups' names as one run of UTF-8 bytes: about 30 bytes a game, 3 MB at 100,000 games,
where a `Finish` a game took 56 and a string a group more. What matters more is the
hand-off: a refit copies them and sends them to its process, pickled while the event loop
waits. A string a group (33,000 at 100,000 games) took 17-30 ms to pickle on the shared
development machine; arrays and bytes are copied whole, in 3-12 ms there.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from arena.rankings.groups import Finish


@dataclass(frozen=True, slots=True)
class Finished:
    """The games handed to a refit, as they stood when it began: picklable, so they are sent
    to the refit's process as they are, and made into `Finish`es there."""

    labels: tuple[str, ...]
    group_names: bytes
    """Every group's name, UTF-8, one after another."""
    group_ends: array[int]
    """Where each group's name ends in `group_names`."""
    sizes: array[int]
    """Each game's seats."""
    group_of: array[int]
    """Each game's group, by its number."""
    seats: array[int]
    """Every game's finishing order, game after game, each seat by its label's number."""

    def __len__(self) -> int:
        return len(self.sizes)

    def names(self) -> list[str]:
        """The versions that played, sorted (the fit's names)."""
        return sorted(set(self.labels))

    def __iter__(self) -> Iterator[Finish]:
        """Each game (a name that is not UTF-8, which only a forged snapshot holds, raises
        UnicodeDecodeError)."""
        groups, start = [], 0
        for end in self.group_ends:
            groups.append(self.group_names[start:end].decode())
            start = end
        at = 0
        for size, group in zip(self.sizes, self.group_of, strict=True):
            order = tuple(self.labels[seat] for seat in self.seats[at : at + size])
            at += size
            yield Finish(groups[group], order)


class Finishes:
    """The settled rounds' games for the fit, only ever added to (a round rated for good)."""

    def __init__(self) -> None:
        self.labels: list[str] = []
        self._label: dict[str, int] = {}
        self.group_names = bytearray()
        self.group_ends = array("I")
        self.sizes = array("I")
        self.group_of = array("I")
        self.seats = array("I")

    @classmethod
    def restored(
        cls,
        labels: list[str],
        group_names: bytes | bytearray,
        group_ends: array[int],
        sizes: array[int],
        group_of: array[int],
        seats: array[int],
    ) -> Finishes:
        """The games as a snapshot kept them (`snapshot`, which checked they fit together)."""
        kept = cls()
        kept.labels = labels
        kept._label = {label: number for number, label in enumerate(labels)}
        kept.group_names, kept.group_ends = bytearray(group_names), group_ends
        kept.sizes, kept.group_of, kept.seats = sizes, group_of, seats
        return kept

    def __len__(self) -> int:
        return len(self.sizes)

    def add(self, games: Iterable[Finish]) -> None:
        """Rounds' games, a round's after another's: a group is one round's alone (its name
        begins with its round's), so only the groups of the games given are looked up."""
        mine: dict[str, int] = {}
        for finish in games:
            if (group := mine.get(finish.group)) is None:
                group = mine[finish.group] = len(self.group_ends)
                self.group_names += finish.group.encode()
                self.group_ends.append(len(self.group_names))
            self.sizes.append(len(finish.order))
            self.group_of.append(group)
            for label in finish.order:
                if (number := self._label.get(label)) is None:
                    number = self._label[label] = len(self.labels)
                    self.labels.append(label)
                self.seats.append(number)

    def prefix(self) -> Prefix:
        """These games as they stand now: the later ones added here are not in it."""
        return Prefix(
            self, len(self.sizes), len(self.seats), len(self.labels), len(self.group_ends)
        )


@dataclass(frozen=True, slots=True)
class Prefix:
    """The games a `Finishes` held at a look: it is only ever added to, so they are the first
    of its games, seats, labels and groups, read in place rather than copied at each look."""

    finishes: Finishes
    games: int
    seats: int
    labels: int
    groups: int

    def __len__(self) -> int:
        return self.games

    def with_tail(self, tail: Sequence[Finish]) -> Finished:
        """These games and `tail` (the rounds not settled at the look, as it rated them),
        copied: the refit's."""
        kept = self.finishes
        ends = kept.group_ends[: self.groups]
        copy = Finishes.restored(
            kept.labels[: self.labels],
            kept.group_names[: ends[-1] if ends else 0],
            ends,
            kept.sizes[: self.games],
            kept.group_of[: self.games],
            kept.seats[: self.seats],
        )
        copy.add(tail)  # several rounds at once: each group's name is its round's own
        return Finished(
            tuple(copy.labels),
            bytes(copy.group_names),
            copy.group_ends,
            copy.sizes,
            copy.group_of,
            copy.seats,
        )
