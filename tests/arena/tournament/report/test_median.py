"""A median kept as its numbers come: `statistics.median`'s, to the bit, without a sort."""

from __future__ import annotations

import random
import statistics
from array import array

import pytest

from arena.records import RecordError
from arena.tournament.report.median import Median


def test_the_median_is_statistics_median_after_every_number() -> None:
    rng = random.Random(3)
    for _ in range(20):
        median, numbers = Median(), []
        assert median.median() == 0.0 and not median
        for _ in range(rng.randint(1, 200)):
            number = rng.choice([round(rng.uniform(0, 5), 3), rng.randint(0, 3) * 1.0, 0.0])
            median.append(number)
            numbers.append(number)
            assert median.median() == statistics.median(numbers)
            assert len(median) == len(numbers) and sorted(median) == sorted(numbers)


def test_a_copy_and_its_original_go_their_own_ways() -> None:
    original = Median([1.0, 2.0, 3.0])
    copied = original.copy()
    copied.extend([10.0, 11.0])
    assert (original.median(), copied.median()) == (2.0, 3.0)
    assert original == Median([3.0, 1.0, 2.0]) and original != copied


def test_restored_from_its_halves_it_goes_on_as_before() -> None:
    median = Median([5.0, 1.0, 4.0, 2.0, 3.0])
    low, high = median.halves()
    back = Median.restored(list(low), list(high))
    for number in (0.5, 9.0, 2.5):
        median.append(number)
        back.append(number)
        assert back.median() == median.median()
    with pytest.raises(RecordError, match="halves differ"):
        Median.restored([-1.0, -2.0, -3.0], [4.0])


def test_restored_from_arrays_it_takes_numbers_as_lists_do() -> None:
    """A snapshot's halves come as arrays, not a Python number each: they go on the same."""
    listed = Median([2.0, 7.0, 1.0, 8.0])
    low, high = listed.halves()
    arrays = Median.restored(array("d", low), array("d", high))
    assert arrays.median() == listed.median() and arrays == listed
    for number in (3.0, 0.5, 9.5):
        listed.append(number)
        arrays.append(number)
        assert arrays.median() == listed.median()
