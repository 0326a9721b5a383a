"""engine.dice: the seeded dice source, the roll-off and the seed commitment."""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections import Counter

import pytest
from engine_support import property_settings, seeds
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    DiceSource,
    HmacDice,
    RandomDice,
    Ruleset,
    SeedError,
    commitment,
    new_game,
    new_seed,
    roll_hands,
    rolloff,
    seed_from_hex,
)

SEED = bytes(range(32))

# The 0.999 quantile of the chi-square distribution with 5 degrees of freedom.
CHI2_5DF_P001 = 20.515


def test_same_seed_and_game_give_the_same_dice() -> None:
    first, second = HmacDice(SEED, "g1"), HmacDice(SEED, "g1")
    for round_ in (-3, 1, 2, 50):
        for seat in range(6):
            assert first.hand(round_, seat, 5) == second.hand(round_, seat, 5)


def test_different_game_keys_or_seeds_give_different_dice() -> None:
    # 40 dice agreeing by chance has probability 6**-40.
    base = HmacDice(SEED, "g1").hand(1, 0, 40)
    assert HmacDice(SEED, "g2").hand(1, 0, 40) != base
    assert HmacDice(bytes(31) + b"\x01", "g1").hand(1, 0, 40) != base
    assert HmacDice(SEED, "g1").hand(2, 0, 40) != base
    assert HmacDice(SEED, "g1").hand(1, 1, 40) != base


@given(seeds, st.text(max_size=10), st.integers(-5, 200), st.integers(0, 5), st.integers(0, 8))
@property_settings(60)
def test_hand_equals_face_by_face(seed: bytes, game: str, round_: int, seat: int, n: int) -> None:
    dice = HmacDice(seed, game)
    hand = dice.hand(round_, seat, n)
    assert hand == tuple(dice.face(round_, seat, i) for i in range(n))
    assert all(1 <= die <= 6 for die in hand)


@given(st.binary(min_size=16, max_size=200), st.text(max_size=80), st.integers(-5, 10**6))
@property_settings(100)
def test_each_die_is_the_documented_hmac(seed: bytes, game: str, round_: int) -> None:
    """Anyone with the published seed can recompute a deal from the module's description."""
    dice = HmacDice(seed, game)
    key = game.encode()
    for seat, index in [(0, 0), (3, 4)]:
        address = struct.pack(">qIII", round_, seat, index, 0)
        message = b"perudo-arena/dice/v1" + struct.pack(">I", len(key)) + key + address
        digest = hmac.new(seed, message, hashlib.sha256).digest()
        expected = next(byte % 6 + 1 for byte in digest if byte < 252)
        assert dice.face(round_, seat, index) == expected
        assert dice.hand(round_, seat, index + 1)[index] == expected


def test_a_short_seed_is_refused() -> None:
    with pytest.raises(SeedError, match="at least 16 bytes, got 15"):
        HmacDice(bytes(15), "g")


@pytest.mark.parametrize(("text", "why"), [("zz" * 16, "hexadecimal"), ("ab" * 15, "got 15")])
def test_a_bad_hex_seed_is_refused_as_a_value_error(text: str, why: str) -> None:
    with pytest.raises(SeedError, match=why) as caught:
        seed_from_hex(text, "--seed")
    assert isinstance(caught.value, ValueError) and "--seed" in str(caught.value)
    assert text not in str(caught.value)  # a mistyped secret is not echoed
    assert seed_from_hex("ab" * 16) == bytes([0xAB] * 16)


def test_faces_are_uniform_chi_square() -> None:
    dice = HmacDice(b"chi-square seed, sixteen bytes+", "uniformity")
    counts: Counter[int] = Counter()
    for round_ in range(1, 1001):
        for seat in range(6):
            counts.update(dice.hand(round_, seat, 10))
    total = sum(counts.values())
    assert total == 60_000
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    expected = total / 6
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi2 < CHI2_5DF_P001, (chi2, counts)


def test_roll_hands_deals_each_seat_its_dice_count() -> None:
    state = new_game(Ruleset(), 4, 0, dice=[5, 0, 2, 1])
    dice = HmacDice(SEED, "g")
    hands = roll_hands(state, dice)
    assert [len(hand) for hand in hands] == [5, 0, 2, 1]
    assert hands == tuple(dice.hand(state.round, seat, n) for seat, n in enumerate(state.dice))


def _roll_off_winner_is_highest(source: DiceSource, players: int, winner: int) -> None:
    """The rule: highest two-dice sum opens; tied leaders roll again (rounds -1, -2, ...)."""
    contenders = list(range(players))
    attempt = 0
    while len(contenders) > 1:
        attempt += 1
        sums = {s: source.face(-attempt, s, 0) + source.face(-attempt, s, 1) for s in contenders}
        assert winner in sums
        assert sums[winner] == max(sums.values())
        contenders = [s for s in contenders if sums[s] == sums[winner]]
    assert contenders == [winner]


@given(seeds, st.integers(2, 6))
@property_settings(100)
def test_rolloff_picks_a_highest_sum(seed: bytes, players: int) -> None:
    source = HmacDice(seed, "rolloff")
    _roll_off_winner_is_highest(source, players, rolloff(source, players))


class ScriptedDice:
    """A dice source that returns faces from a table keyed by (round, seat, index)."""

    def __init__(self, faces: dict[tuple[int, int, int], int]) -> None:
        self.faces = faces

    def face(self, round: int, seat: int, index: int) -> int:
        return self.faces.get((round, seat, index), 1)

    def hand(self, round: int, seat: int, count: int) -> tuple[int, ...]:
        return tuple(self.face(round, seat, i) for i in range(count))


def test_rolloff_ties_roll_again_among_the_tied_only() -> None:
    faces = {
        # First roll: seats 0 and 2 tie on 12, seat 1 has 11.
        (-1, 0, 0): 6, (-1, 0, 1): 6,
        (-1, 1, 0): 5, (-1, 1, 1): 6,
        (-1, 2, 0): 6, (-1, 2, 1): 6,
        # Second roll: seat 1 would win, but it is no longer in; seat 2 beats seat 0.
        (-2, 0, 0): 2, (-2, 0, 1): 2,
        (-2, 1, 0): 6, (-2, 1, 1): 6,
        (-2, 2, 0): 3, (-2, 2, 1): 2,
    }  # fmt: skip
    assert rolloff(ScriptedDice(faces), 3) == 2


def test_commitment_is_the_sha256_hex_of_the_seed() -> None:
    # FIPS 180-2 test vector for "abc".
    assert commitment(b"abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    seed = new_seed()
    assert commitment(seed) == hashlib.sha256(seed).hexdigest()


def test_new_seeds_are_long_and_fresh() -> None:
    first, second = new_seed(), new_seed()
    assert len(first) >= 16
    assert first != second
    HmacDice(first, "g")  # long enough to be used


# --- RandomDice: the plain seeded source for simulations ------------------------------


@given(st.integers(-(2**70), 2**70), st.integers(-5, 200), st.integers(0, 5), st.integers(0, 8))
@property_settings(60)
def test_random_dice_hand_equals_face_by_face(seed: int, round_: int, seat: int, n: int) -> None:
    dice = RandomDice(seed)
    hand = dice.hand(round_, seat, n)
    assert hand == tuple(dice.face(round_, seat, i) for i in range(n))
    assert all(1 <= die <= 6 for die in hand)
    assert RandomDice(seed).hand(round_, seat, n) == hand  # reproducible from the seed alone


def test_random_dice_differ_by_seed_round_and_seat() -> None:
    # 40 dice agreeing by chance has probability 6**-40.
    base = RandomDice(1).hand(1, 0, 40)
    assert RandomDice(2).hand(1, 0, 40) != base
    assert RandomDice(1).hand(2, 0, 40) != base
    assert RandomDice(1).hand(1, 1, 40) != base
    # A round's dice do not depend on what was rolled before it.
    earlier = RandomDice(1)
    earlier.hand(1, 1, 5)
    assert earlier.hand(1, 0, 40) == base


def test_random_dice_are_uniform_chi_square() -> None:
    dice = RandomDice(12345)
    counts: Counter[int] = Counter()
    for round_ in range(1, 1001):
        for seat in range(6):
            counts.update(dice.hand(round_, seat, 10))
    expected = sum(counts.values()) / 6
    chi2 = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi2 < CHI2_5DF_P001, (chi2, counts)


@given(st.integers(0, 2**32), st.integers(2, 6))
@property_settings(40)
def test_random_dice_deal_and_roll_off_like_any_source(seed: int, players: int) -> None:
    source: DiceSource = RandomDice(seed)
    _roll_off_winner_is_highest(source, players, rolloff(source, players))
    state = new_game(Ruleset(), players, 0)
    hands = roll_hands(state, source)
    assert [len(hand) for hand in hands] == [5] * players
