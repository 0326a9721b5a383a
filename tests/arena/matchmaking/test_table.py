"""The matchmaker's promises: valid tables, a floor no one falls under, the placement burst
first, and a draw only the secret decides."""

from __future__ import annotations

import dataclasses
import math
import random
import typing
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.matchmaking import (
    Draw,
    Entrant,
    LadderError,
    Rating,
    Reason,
    Rules,
    Table,
    choose,
    from_fit,
    starting_rating,
)
from arena.matchmaking.field import SCALE

SECRET = b"the server's own secret, 32 byte"


def _field(rng: random.Random, n: int, games: int = 60) -> list[Entrant]:
    return [
        Entrant(f"bot{i:02d}", Rating(rng.gauss(25, 4), rng.uniform(0.7, 3)), games)
        for i in range(n)
    ]


def _played(field: Sequence[Entrant], table: Table) -> list[Entrant]:
    """The field once the table's rotation group is played (ratings left as they were)."""
    seated = len(table.seats)
    return [
        dataclasses.replace(e, games=e.games + seated) if e.name in table.seats else e
        for e in field
    ]


fields = st.builds(
    lambda n, seed, games: _field(random.Random(seed), n, games),
    st.integers(2, 24),
    st.integers(0, 10**6),
    st.integers(0, 200),
)
sizes = st.lists(st.integers(2, 6), min_size=1, max_size=5, unique=True).map(tuple)


@settings(max_examples=100, deadline=None)
@given(fields, sizes, st.integers(0, 2**64 - 1))
def test_a_table_seats_distinct_entrants_at_an_allowed_size(
    field: list[Entrant], allowed: tuple[int, ...], counter: int
) -> None:
    rules = Rules(sizes=allowed)
    if min(allowed) > len(field):
        with pytest.raises(LadderError, match="smallest table seats"):
            choose(field, rules, Draw(SECRET, counter))
        return
    table = choose(field, rules, Draw(SECRET, counter))
    assert len(table.seats) in allowed
    assert len(set(table.seats)) == len(table.seats)
    assert set(table.seats) <= {e.name for e in field}
    rotations = table.rotations()
    assert len(rotations) == len(table.seats)
    for seat in range(len(table.seats)):  # every entrant once in every seat
        assert sorted(r[seat] for r in rotations) == sorted(table.seats)


@settings(max_examples=20, deadline=None)
@given(st.integers(3, 30), sizes, st.floats(0.2, 1.0), st.integers(0, 10**6))
def test_no_one_falls_a_table_below_the_floor(
    n: int, allowed: tuple[int, ...], floor: float, seed: int
) -> None:
    """From a field of nothing played, with ratings that never move (so the matchmaker's
    interest stays where it is), every entrant stays within one table of the floor."""
    allowed = tuple(s for s in allowed if s <= n) or (2,)
    rules = Rules(sizes=allowed, floor=floor, placement=6)
    rng = random.Random(seed)
    field = [
        Entrant(f"bot{i:02d}", Rating(rng.gauss(25, 8), rng.uniform(0.5, 2)), 0) for i in range(n)
    ]
    for counter in range(300):
        field = _played(field, choose(field, rules, Draw(SECRET, counter)))
        mean = sum(e.games for e in field) / n
        assert min(e.games for e in field) >= floor * mean - max(allowed), counter


def test_a_told_apart_entrant_gets_its_floor_and_no_more() -> None:
    """One entrant far above the rest, its rating sure: no question is asked of it, so its
    games are the floor's, while the close ones share the rest."""
    rng = random.Random(5)
    field = [Entrant("champion", Rating(60, 0.7), 0)] + [
        Entrant(f"bot{i}", Rating(25 + rng.gauss(0, 1), 1.5), 0) for i in range(7)
    ]
    rules = Rules(sizes=(3,), placement=0)
    for counter in range(600):
        field = _played(field, choose(field, rules, Draw(SECRET, counter)))
    games = {e.name: e.games for e in field}
    mean = sum(games.values()) / len(games)
    assert rules.floor * mean - 3 <= games["champion"] <= rules.floor * mean + 3
    assert min(g for name, g in games.items() if name != "champion") > games["champion"] + 30


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([(2,), (3,), (4,), (6,), (2, 6)]), st.integers(1, 30), st.integers(0, 99))
def test_a_new_entrant_gets_its_placement_games_first(
    allowed: tuple[int, ...], placement: int, seed: int
) -> None:
    rng = random.Random(seed)
    field = _field(rng, 9, games=100)
    old = field.pop(rng.randrange(len(field)))
    new = Entrant(f"{old.name}-v2", starting_rating(old.rating), 0)
    field.append(new)
    rules = Rules(sizes=allowed, placement=placement)
    counter = 0
    while (games := next(e.games for e in field if e.name == new.name)) < placement:
        table = choose(field, rules, Draw(SECRET, counter))
        assert new.name in table.seats and table.reason is Reason.PLACEMENT, games
        field = _played(field, table)
        counter += 1
    assert counter == math.ceil(placement / min(allowed)) or len(allowed) > 1


def test_placement_serves_several_new_entrants_at_once() -> None:
    """Every new entrant is given its burst, the fewest games first: none waits on another's."""
    field = _field(random.Random(2), 6, games=90) + [
        Entrant(f"new{i}", starting_rating(None), 0) for i in range(3)
    ]
    rules = Rules(sizes=(3,), placement=12)
    for counter in range(4):
        table = choose(field, rules, Draw(SECRET, counter))
        assert {"new0", "new1", "new2"} <= set(table.seats)  # the starved fill the rest
        field = _played(field, table)
    assert choose(field, rules, Draw(SECRET, 4)).reason is not Reason.PLACEMENT


def test_the_same_secret_and_state_choose_the_same_table_whatever_the_order_given() -> None:
    field = _field(random.Random(1), 12)
    rules = Rules(sizes=(2, 3, 4))
    tables = [choose(field, rules, Draw(SECRET, c)) for c in range(40)]
    for c, table in enumerate(tables):
        shuffled = random.Random(c).sample(field, len(field))
        assert choose(shuffled, rules, Draw(SECRET, c)) == table
    assert len({t.seats for t in tables}) > 20  # and the counter moves the draw on


def test_another_secret_draws_another_sequence() -> None:
    field = _field(random.Random(1), 12)
    rules = Rules(sizes=(3,))
    ours = [choose(field, rules, Draw(SECRET, c)).seats for c in range(20)]
    other = [
        choose(field, rules, Draw(b"another secret of 32 bytes ....", c)).seats for c in range(20)
    ]
    assert sum(a == b for a, b in zip(ours, other, strict=True)) < 5


def test_a_name_only_orders_the_field_and_gains_no_seat() -> None:
    """Names enter the choice only through their order (which the secret's shuffle then
    undoes): any renaming that keeps the order chooses the same tables; and in a field of
    equals the name that sorts first is seated no more often than the one that sorts last."""
    field = _field(random.Random(4), 8)
    renamed = [dataclasses.replace(e, name=f"{e.name}-{'x' * i}") for i, e in enumerate(field)]
    to_new = {a.name: b.name for a, b in zip(field, renamed, strict=True)}
    rules = Rules(sizes=(3,))
    for c in range(30):
        table = choose(field, rules, Draw(SECRET, c))
        assert choose(renamed, rules, Draw(SECRET, c)).seats == tuple(
            to_new[n] for n in table.seats
        )
    equals = [Entrant(name, Rating(25, 1), 50) for name in ("!first", "m", "n", "o", "p", "~last")]
    seated = Counter(n for c in range(600) for n in choose(equals, rules, Draw(SECRET, c)).seats)
    assert all(240 <= seated[e.name] <= 360 for e in equals), seated  # 300 each, sd about 12


def test_the_choice_reads_only_the_servers_record() -> None:
    """What reaches the matchmaker is typed, and nothing of it is a bot's own data: a name,
    two numbers of the rating and a count of games, the organiser's rules, the server's
    secret."""
    hints = typing.get_type_hints(choose)
    assert hints == {
        "entrants": Sequence[Entrant],
        "rules": Rules,
        "draw": Draw,
        "return": Table,
    }
    assert typing.get_type_hints(Entrant) == {"name": str, "rating": Rating, "games": int}
    assert typing.get_type_hints(Rating) == {"mu": float, "sigma": float}
    assert SECRET.decode() not in repr(Draw(SECRET, 3))


def test_a_new_version_starts_from_its_last_with_sigma_widened() -> None:
    fresh = starting_rating(None)
    assert fresh == Rating(25.0, 25.0 / 3)
    settled = starting_rating(Rating(31.5, 0.8))
    assert settled.mu == 31.5 and 4 < settled.sigma < fresh.sigma
    assert starting_rating(Rating(20.0, 8.0)).sigma == fresh.sigma  # never wider than fresh


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda: Rules(sizes=()), "table sizes"),
        (lambda: Rules(sizes=(1, 3)), "table sizes"),
        (lambda: Rules(sizes=(3, 3)), "table sizes"),
        (lambda: Rules(placement=-1), "placement"),
        (lambda: Rules(floor=1.5), "floor"),
        (lambda: Rating(25, 0), "positive sigma"),
        (lambda: Rating(math.nan, 1), "finite mu"),
        (lambda: Entrant("", Rating(25, 1), 0), "needs a name"),
        (lambda: Entrant("a", Rating(25, 1), -1), "cannot have played"),
        (lambda: Draw(b"short", 0), "at least 16 bytes"),
        (lambda: Draw(SECRET, -1), "table's number"),
        (lambda: Draw(SECRET, 2**64), "table's number"),
        (lambda: choose([Entrant("a", Rating(25, 1), 0)] * 2, Rules(), Draw(SECRET, 0)), "unique"),
    ],
)
def test_what_cannot_be_used_is_refused_with_a_reason(
    make: typing.Callable[[], object], says: str
) -> None:
    with pytest.raises(LadderError, match=says):
        make()


def test_the_batch_fits_strength_becomes_a_rating_on_trueskills_scale() -> None:
    """The field's average strength is a fresh mu; a 95% interval of +-1.96 units of log
    strength is a sigma of one unit, about 3.7 TrueSkill points: where two bots are even,
    one unit of log strength and that many points of mu tell them apart alike."""
    even = from_fit(0.0, -1.96, 1.96, 0.95)
    assert even.mu == 25.0 and even.sigma == pytest.approx(SCALE, rel=1e-4)
    assert 3.6 < SCALE < 3.8
    assert from_fit(1.0, 0.5, 1.5, 0.95).mu == pytest.approx(25.0 + SCALE)
    assert from_fit(0.3, 0.3, 0.3, 0.95).sigma > 0  # copies that all agree still leave doubt
    assert from_fit(0.0, -1.0, 1.0, 0.5).sigma > from_fit(0.0, -1.0, 1.0, 0.95).sigma


def test_two_halves_that_look_far_apart_still_meet() -> None:
    """Ratings that drifted apart with no game between them (two halves of a field, 7 mu
    apart, each sure of itself): the halves' nearest two still share a table now and
    then, so that their games can bring the ratings back."""
    field = [Entrant(f"top{i}", Rating(30 - i, 0.7), 100) for i in range(4)] + [
        Entrant(f"bottom{i}", Rating(20 - i, 0.7), 100) for i in range(4)
    ]
    rules = Rules(sizes=(3,), placement=0)
    met = 0
    for counter in range(1000):
        table = choose(field, rules, Draw(SECRET, counter))
        met += {"top3", "bottom0"} <= set(table.seats)
        field = _played(field, table)
    assert 5 <= met <= 60  # about 1000 * 0.1 / 7 of the pair draws, and a few fills
