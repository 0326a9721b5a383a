"""The Python sample bots: always legal, and ordered by strength as documented.

Games are played in-process by samples_harness.py (engine only, no referee), with
seeded dice and seeded bot randomness, so every test here is deterministic.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from collections.abc import Sequence
from typing import Any

import pytest
import samples_harness as harness

from arena.kit import PASS, Answer
from engine import (
    CALZA,
    DUDO,
    Bid,
    CalzaRule,
    Observation,
    PalificoFaceChange,
    PlacedBid,
    RoundEnd,
    RoundOutcome,
    Ruleset,
    Side,
    apply,
    deal,
    new_game,
    observe,
)

POLICIES = harness.load_policies()
NAMES: tuple[str, ...] = harness.BOT_NAMES


def _position(
    hands: Sequence[Sequence[int]],
    bids: Sequence[Bid] = (),
    ruleset: Ruleset | None = None,
    palifico: bool = False,
    seat: int | None = None,
) -> Observation:
    """Seat 0 opens, the bids follow in seat order; as seen by `seat` (default: who acts)."""
    state = new_game(
        ruleset or Ruleset(), len(hands), 0, dice=[len(h) for h in hands], palifico=palifico
    )
    state = deal(state, hands)
    for bid in bids:
        state = apply(state, state.to_act, bid)
    return observe(state, state.to_act if seat is None else seat)


# Legality

SOAK_GAMES = 100
"""The legality soak's games in the default suite; its slow twin plays ten times as many
(the same seed, so the same first games and more after them)."""
OWN_GAMES = 15
"""Each bot against itself, in the default suite; its slow twin plays ten times as many."""


def test_every_bot_answers_legally_under_random_rulesets() -> None:
    assert harness.legality_soak(POLICIES, games=SOAK_GAMES, seed=2024) == SOAK_GAMES


@pytest.mark.slow
def test_every_bot_answers_legally_over_many_random_rulesets() -> None:
    games = SOAK_GAMES * 10
    assert harness.legality_soak(POLICIES, games=games, seed=2024) == games


@pytest.mark.parametrize("name", NAMES)
def test_bot_answers_legally_against_itself(name: str) -> None:
    harness.legality_soak({name: POLICIES[name]}, games=OWN_GAMES, seed=7)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_bot_answers_legally_against_itself_over_many_games(name: str) -> None:
    harness.legality_soak({name: POLICIES[name]}, games=OWN_GAMES * 10, seed=7)


@pytest.mark.parametrize("name", NAMES)
def test_bot_challenges_when_no_raise_is_left(name: str) -> None:
    # Four pacos of four dice: no count or face can go higher.
    obs = _position([[2, 3], [4, 5]], [Bid(1, 2), Bid(4, 1)])
    assert not any(obs.floors)
    assert POLICIES[name](obs) in (DUDO, CALZA)


@pytest.mark.parametrize("name", NAMES)
def test_bot_answers_an_out_of_turn_offer_with_pass_or_calza(name: str) -> None:
    ruleset = Ruleset(calza=CalzaRule.ANY)
    obs = _position([[2, 3], [4, 5], [6, 6]], [Bid(2, 6)], ruleset, seat=2)
    assert not obs.my_turn and obs.can_calza
    assert POLICIES[name](obs) in (PASS, CALZA)


def test_harness_refuses_illegal_answers() -> None:
    def repeats_the_opening(obs: Observation) -> Answer:
        return Bid(1, 2)

    def passes_on_its_turn(obs: Observation) -> Answer:
        return PASS

    for cheat in (repeats_the_opening, passes_on_its_turn):
        with pytest.raises(harness.IllegalAnswerError):
            harness.play_game([cheat, cheat], Ruleset(), bytes(32), "cheat")


def test_games_replay_exactly_from_their_seed() -> None:
    policies = [POLICIES[name] for name in NAMES]
    ruleset = Ruleset(calza=CalzaRule.ANY)
    first = harness.play_game(policies, ruleset, b"s" * 32, "replay")
    again = harness.play_game(policies, ruleset, b"s" * 32, "replay")
    assert first.history == again.history


@pytest.mark.parametrize("name", NAMES)
def test_bot_script_runs_standalone(name: str) -> None:
    # The arena runs each script with its own interpreter: it must import and parse flags.
    script = harness.BOT_DIR / f"{name}_bot.py"
    done = subprocess.run(
        [sys.executable, str(script), "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "--address" in done.stdout


# Decisions


@pytest.mark.parametrize("name", ["binomial", "bluffer", "strong"])
def test_odds_bots_challenge_an_impossible_bid(name: str) -> None:
    # Nine 6s of ten dice while we hold none of them and no paco.
    obs = _position([[2, 2, 3, 3, 4], [5, 5, 5, 5, 5]], [Bid(2, 2), Bid(9, 6)])
    assert POLICIES[name](obs) == DUDO


@pytest.mark.parametrize("name", ["binomial", "strong"])
def test_odds_bots_open_a_palifico_round_on_their_die(name: str) -> None:
    obs = _position([[5], [2, 3, 4, 6, 6]], palifico=True)
    answer = POLICIES[name](obs)
    assert isinstance(answer, Bid) and answer.face == 5


def test_strong_reads_the_faces_others_bid() -> None:
    strong = harness.load_bot("strong")
    hands = [[2, 3, 4, 5, 6], [2, 2, 3, 3, 4], [4, 5, 6, 6, 2]]
    # Seat 2 looks on, before and after seat 1 bids 6s.
    quiet = _position(hands, [Bid(2, 2)], seat=2)
    hinted = _position(hands, [Bid(2, 2), Bid(3, 6)])
    six = Bid(5, 6)
    assert strong.Beliefs(hinted).chance_true(six) > strong.Beliefs(quiet).chance_true(six)


def test_strong_trusts_a_seat_whose_shown_bids_were_backed_by_its_dice() -> None:
    strong = harness.load_bot("strong")
    hands = [[2, 3, 4, 5, 6], [2, 3, 4, 5, 6], [2, 3, 4, 5, 6]]
    obs = _position(hands, [Bid(3, 6), Bid(4, 6)])  # seat 1 bid 6s; seat 2 to act

    def shown(held: tuple[int, ...]) -> RoundOutcome:
        return RoundOutcome(
            round=1,
            end=RoundEnd.DUDO,
            caller=2,
            standing=PlacedBid(1, Bid(5, 3)),
            counted=5,
            hands=((2, 2, 2, 2, 2), held, (2, 2, 2, 2, 2)),
            changed_seat=2,
            dice_change=-1,
            palifico=False,
        )

    honest = dataclasses.replace(obs, history=(shown((3, 3, 3, 1, 5)),) * 4)
    bluffer = dataclasses.replace(obs, history=(shown((2, 4, 5, 6, 6)),) * 4)
    six = Bid(5, 6)
    assert strong.Beliefs(honest).chance_true(six) > strong.Beliefs(obs).chance_true(six)
    assert strong.Beliefs(bluffer).chance_true(six) < strong.Beliefs(obs).chance_true(six)


def test_strong_calls_calza_often_and_mostly_right() -> None:
    policies = [POLICIES[name] for name in NAMES]  # strong sits at seat 0
    calls = right = 0
    for game in range(60):
        state = harness.play_game(policies, Ruleset(), bytes([game]) * 32, f"calza-{game}")
        for outcome in state.history:
            if outcome.end is RoundEnd.CALZA and outcome.caller == 0:
                assert outcome.standing is not None
                calls += 1
                right += outcome.counted == outcome.standing.bid.count
    assert calls >= 20
    assert right / calls > 0.6


# Strength


def _assert_ordered(standings: Any) -> None:
    """strong < binomial < bluffer < random in mean place, and strong far ahead of random."""
    mean = {name: standings.mean_place(name) for name in NAMES}
    wins = {name: standings.win_rate(name) for name in NAMES}
    table = standings.table()
    assert mean["strong"] < mean["binomial"] < mean["bluffer"] < mean["random"], table
    assert mean["random"] - mean["strong"] > 2.0, table
    assert wins["strong"] > 0.6, table
    assert wins["random"] < 0.05, table


@pytest.mark.slow
def test_strength_order_in_four_player_games() -> None:
    _assert_ordered(harness.tournament(POLICIES, games=400, seed=7))


@pytest.mark.slow
@pytest.mark.parametrize(
    "ruleset",
    [
        Ruleset(),
        Ruleset(calza=CalzaRule.ANY),
        Ruleset(calza=CalzaRule.OFF),
        Ruleset(palifico=False),
        Ruleset(palifico_once=False, palifico_face_change=PalificoFaceChange.ALL),
        Ruleset(
            palifico_face_change=PalificoFaceChange.OTHERS,
            palifico_min_players=3,
            open_on_pacos=True,
            opener_after_elimination=Side.RIGHT,
            calza_max_dice=6,
        ),
    ],
    ids=["rulebook", "calza-any", "calza-off", "no-palifico", "palifico-loose", "variants"],
)
def test_strength_order_over_many_games(ruleset: Ruleset) -> None:
    _assert_ordered(harness.tournament(POLICIES, games=1200, seed=2024, ruleset=ruleset))
