"""A median kept as its numbers come, so that asking for it costs nothing however many.

A standing's median decision time was `statistics.median` of every one of its times, a sort
at every look: a ladder's version plays all season, and at 100,000 games the ladder's
status spent about 130 ms sorting its eight rows' times (seconds at a million). Two heaps,
the lower half (negated, so that its largest is on top) and the upper half, give the same
median exactly, `statistics.median`'s to the bit (the middle number, or the mean of the two
middle ones), at O(log n) a number added and O(1) a look.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Iterator, Sequence

from arena.records import RecordError


class Median:
    """Numbers added one at a time, and their median."""

    __slots__ = ("_high", "_low")
    __hash__ = None  # type: ignore[assignment]  # it changes as numbers come

    def __init__(self, numbers: Iterable[float] = ()) -> None:
        self._low: list[float] = []
        """The lower half, negated: a max-heap. It holds the middle number of an odd count."""
        self._high: list[float] = []
        """The upper half: a min-heap."""
        self.extend(numbers)

    @classmethod
    def restored(cls, low: Sequence[float], high: Sequence[float]) -> Median:
        """A median as `halves` gave its two heaps (the ladder's snapshot keeps them,
        `arena.league.ladder.snapshot`): taken as they are, in their heaps' order, so that
        a season's times are not pushed again, and as they come (an array read from a file,
        say) until a number is added: a restart then costs no Python number a time (at a
        million games, a third of a second)."""
        if not 0 <= len(low) - len(high) <= 1:
            raise RecordError("a median's halves differ by more than one number")
        median = cls()
        median._low, median._high = low, high  # type: ignore[assignment]  # lists at `_own`
        return median

    def halves(self) -> tuple[Sequence[float], Sequence[float]]:
        """Its two heaps as they stand (the lower negated): what `restored` takes back."""
        return self._low, self._high

    def _own(self) -> None:
        """Its heaps as lists, which `heapq` works on (restored ones may be arrays)."""
        if type(self._low) is not list:
            self._low = list(self._low)
        if type(self._high) is not list:
            self._high = list(self._high)

    def append(self, number: float) -> None:
        self._own()
        if self._low and number > -self._low[0]:
            heapq.heappush(self._high, number)
        else:
            heapq.heappush(self._low, -number)
        if len(self._low) > len(self._high) + 1:
            heapq.heappush(self._high, -heapq.heappop(self._low))
        elif len(self._high) > len(self._low):
            heapq.heappush(self._low, -heapq.heappop(self._high))

    def extend(self, numbers: Iterable[float]) -> None:
        for number in numbers:
            self.append(number)

    def median(self) -> float:
        """The middle number, or the mean of the two middle ones; 0.0 for none."""
        if not self._low:
            return 0.0
        if len(self._low) > len(self._high):
            return -self._low[0]
        return (-self._low[0] + self._high[0]) / 2

    def copy(self) -> Median:
        return Median.restored(list(self._low), list(self._high))

    def __len__(self) -> int:
        return len(self._low) + len(self._high)

    def __iter__(self) -> Iterator[float]:
        """Its numbers, in no order."""
        yield from (-n for n in self._low)
        yield from self._high

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Median):
            return NotImplemented
        return sorted(self) == sorted(other)

    def __repr__(self) -> str:
        return f"Median(n={len(self)}, median={self.median()})"
