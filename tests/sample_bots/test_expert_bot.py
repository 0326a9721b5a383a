"""The expert house bot (sample_bots/expert): legal, reads bids, keeps its budget, is strong.

Games are played in-process through the engine (samples_harness.py), no referee; the
folder as a whole is put through check-bot with the other folder samples
(tests/arena/test_checkbot.py).
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
import samples_harness as harness
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.kit import PASS, Answer, Pass
from engine import (
    CALZA,
    DUDO,
    Bid,
    CalzaRule,
    FaultPenalty,
    Observation,
    Opener,
    PalificoFaceChange,
    Phase,
    PlacedBid,
    RoundEnd,
    RoundOutcome,
    Ruleset,
    Side,
    apply,
    deal,
    fault,
    is_legal,
    new_game,
    observe,
)

EXPERT = Path(__file__).resolve().parents[2] / "sample_bots" / "expert"
sys.path.insert(0, str(EXPERT))  # the bot's modules import each other as siblings
import belief  # noqa: E402
import evaluate  # noqa: E402
import policy  # noqa: E402
import tendencies  # noqa: E402

SAMPLES = harness.load_policies()


def _position(
    hands: Sequence[Sequence[int]],
    bids: Sequence[Bid] = (),
    ruleset: Ruleset | None = None,
    seat: int | None = None,
) -> Observation:
    """Seat 0 opens, the bids follow in seat order; as seen by `seat` (default: who acts)."""
    state = new_game(ruleset or Ruleset(), len(hands), 0, dice=[len(h) for h in hands])
    state = deal(state, hands)
    for bid in bids:
        state = apply(state, state.to_act, bid)
    return observe(state, state.to_act if seat is None else seat)


def _play(expert: policy.Expert, names: Sequence[str], ruleset: Ruleset, key: str) -> None:
    """One game through the harness (which refuses any illegal answer), the expert at 'expert'."""

    def seat_policy(name: str) -> harness.Policy:
        if name != "expert":
            return SAMPLES[name]
        return lambda obs: expert.act(obs, key, names)

    state = harness.play_game([seat_policy(n) for n in names], ruleset, key.encode() * 4, key)
    expert.game_over(key, names, list(names).index("expert"), state.history)


# Legality

rulesets = st.builds(
    Ruleset,
    dice_per_player=st.integers(1, 7),
    opener=st.sampled_from(Opener),
    lower_face_with_higher_count=st.booleans(),
    calza=st.sampled_from(CalzaRule),
    palifico=st.booleans(),
    palifico_once=st.booleans(),
    palifico_face_change=st.sampled_from(PalificoFaceChange),
    palifico_min_players=st.integers(2, 4),
    open_on_pacos=st.booleans(),
    opener_after_elimination=st.sampled_from(Side),
    calza_max_dice=st.none() | st.integers(1, 7),
    fault_penalty=st.sampled_from(FaultPenalty),
)


GAMES = {
    "ruleset": rulesets,
    "others": st.lists(st.sampled_from(sorted(SAMPLES)), min_size=1, max_size=5),
    "seat": st.integers(0, 5),
    "key": st.text("abcdef0123456789", min_size=4, max_size=8),
}


def _legal_game(ruleset: Ruleset, others: list[str], seat: int, key: str) -> None:
    names = list(others)
    names.insert(seat % (len(names) + 1), "expert")
    _play(policy.Expert(budget=0.003, seed=1), names, ruleset, key)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GAMES)
def test_expert_answers_legally_under_any_ruleset(
    ruleset: Ruleset, others: list[str], seat: int, key: str
) -> None:
    _legal_game(ruleset, others, seat, key)


@pytest.mark.slow
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(**GAMES)
def test_expert_answers_legally_over_many_rulesets(
    ruleset: Ruleset, others: list[str], seat: int, key: str
) -> None:
    _legal_game(ruleset, others, seat, key)


def test_expert_answers_an_out_of_turn_offer_with_pass_or_calza() -> None:
    obs = _position([[2, 3], [4, 5], [6, 6]], [Bid(2, 6)], Ruleset(calza=CalzaRule.ANY), seat=2)
    assert not obs.my_turn and obs.can_calza
    assert policy.Expert(seed=1).act(obs, "g", ["a", "b", "c"]) in (PASS, CALZA)


def test_expert_challenges_an_impossible_bid() -> None:
    # Nine 6s of ten dice while it holds no 6 and no paco.
    obs = _position([[2, 2, 3, 3, 4], [5, 5, 5, 5, 5]], [Bid(2, 2), Bid(9, 6)])
    assert policy.Expert(seed=1).act(obs, "g", ["a", "b"]) == DUDO


@pytest.mark.parametrize("penalty", list(FaultPenalty))
def test_expert_plays_on_after_another_seat_faults(penalty: FaultPenalty) -> None:
    ruleset = Ruleset(fault_penalty=penalty)
    state = deal(new_game(ruleset, 3, 0), [[2, 3, 4, 5, 6], [2, 2, 3, 3, 4], [4, 5, 6, 6, 1]])
    state = apply(state, 0, Bid(2, 3))
    state = fault(state, 1)  # the round is called off: its hands are never shown
    state = deal(state, [[2, 3, 4, 5, 6], [2] * state.dice[1], [4, 5, 6, 6, 1]])
    expert = policy.Expert(seed=2)
    for _ in range(3):
        if state.phase is not Phase.BIDDING:
            break
        seat = state.to_act
        answer = expert.act(observe(state, seat), "g", ["a", "b", "c"])
        assert not isinstance(answer, Pass) and is_legal(state, seat, answer)
        state = apply(state, seat, answer)


# Beliefs


def _shown(name_seat: int, bid: Bid, hand: tuple[int, ...]) -> RoundOutcome:
    """A round in which seat `name_seat` bid `bid` holding `hand`, and was called."""
    hands = [(2, 3, 4, 5, 6)] * 3
    hands[name_seat] = hand
    return RoundOutcome(
        round=1,
        end=RoundEnd.DUDO,
        caller=(name_seat + 1) % 3,
        standing=PlacedBid(name_seat, bid),
        counted=0,
        hands=tuple(hands),
        changed_seat=name_seat,
        dice_change=-1,
        palifico=False,
    )


def _taught(shown_hand: tuple[int, ...], rounds: int = 8) -> tendencies.Tendencies:
    """Tendencies that have seen seat 1 ('them') bid 6s `rounds` times, holding `shown_hand`."""
    learned = tendencies.Tendencies()
    for _ in range(rounds):
        outcome = _shown(1, Bid(4, 6), shown_hand)
        learned.observe_round(["me", "them", "other"], [PlacedBid(1, Bid(4, 6))], outcome, me=0)
    return learned


def _chance(obs: Observation, learned: tendencies.Tendencies, seat: int, face: int) -> float:
    names = ["me", "them", "other"]
    honesty = [learned.honesty(name) for name in names]
    return belief.Belief(obs, honesty, policy.random.Random(1)).chance_per_die(seat, face)


def test_a_bid_makes_its_face_likelier_in_the_bidders_hand_alone() -> None:
    hands = [[2, 3, 4, 5, 2], [2, 2, 3, 3, 4], [4, 5, 6, 6, 2]]
    quiet = _position(hands, [Bid(2, 2)], seat=0)  # seat 0 opened on 2s; seat 1 to bid
    hinted = _position(hands, [Bid(2, 2), Bid(3, 6)], seat=0)  # seat 1 bid 6s
    fresh = tendencies.Tendencies()
    assert _chance(quiet, fresh, 1, 6) == pytest.approx(1 / 3)
    assert _chance(hinted, fresh, 1, 6) > _chance(quiet, fresh, 1, 6) + 0.05
    assert _chance(hinted, fresh, 2, 6) == pytest.approx(1 / 3)  # seat 2 said nothing


def test_a_bidder_whose_bids_were_backed_by_its_dice_is_believed_more() -> None:
    obs = _position(
        [[2, 3, 4, 5, 2], [2, 2, 3, 3, 4], [4, 5, 6, 6, 2]], [Bid(2, 2), Bid(3, 6)], seat=0
    )
    honest = _chance(obs, _taught((6, 6, 1, 6, 3)), 1, 6)
    liar = _chance(obs, _taught((2, 3, 4, 5, 2)), 1, 6)
    fresh = _chance(obs, tendencies.Tendencies(), 1, 6)
    assert honest > fresh > liar
    assert liar < 1 / 3 + 0.03  # a bluffer's bids come to say almost nothing


def test_a_player_seen_to_challenge_likely_bids_is_expected_to_again() -> None:
    learned = tendencies.Tendencies()
    before = learned.dudo_rate("them", 0.9)
    for _ in range(10):
        # 'me' bid three 5s; 'them' (seat 1) holds two of them and still called dudo.
        outcome = RoundOutcome(
            round=1,
            end=RoundEnd.DUDO,
            caller=1,
            standing=PlacedBid(0, Bid(3, 5)),
            counted=5,
            hands=((5, 5, 2, 3, 4), (5, 1, 2, 3, 4), (2, 3, 4, 6, 6)),
            changed_seat=1,
            dice_change=-1,
            palifico=False,
        )
        learned.observe_round(["me", "them", "other"], [PlacedBid(0, Bid(3, 5))], outcome, me=0)
    assert learned.dudo_rate("them", 0.9) > before + 0.2
    assert learned.dudo_rate("other", 0.9) < learned.dudo_rate("them", 0.9)


# Time


@pytest.fixture
def busy_cpu() -> Iterator[None]:
    """Another process spinning on a core while the bot thinks."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        spinner.kill()
        spinner.wait()


def test_decisions_keep_their_budget_under_load(busy_cpu: None) -> None:
    # Without its clock the search would run a million deals (many seconds) per decision.
    expert = policy.Expert(budget=0.02, seed=3, max_deals=10**6)
    kept: list[policy.Decision] = []

    def watched(obs: Observation) -> Answer:
        answer = expert.act(obs, "load", names)
        assert expert.last is not None
        kept.append(expert.last)
        return answer

    names = ["expert", "strong", "binomial", "bluffer"]
    policies = [watched, *(SAMPLES[n] for n in names[1:])]
    harness.play_game(policies, Ruleset(), b"l" * 32, "load")
    assert len(kept) >= 10
    for decision in kept:
        assert decision.deals < 10**6
        assert decision.seconds < decision.budget + 0.5, decision


def test_the_time_left_caps_the_budget() -> None:
    expert = policy.Expert(budget=0.05, seed=1)
    expert.act(_position([[2, 3], [4, 5]]), "g", ["a", "b"], time_left_ms=40)
    assert expert.last is not None
    assert expert.last.budget == pytest.approx(0.040 * policy.TIME_SHARE)


def test_the_bot_script_takes_the_kit_flags() -> None:
    done = subprocess.run(
        [sys.executable, str(EXPERT / "bot.py"), "--budget-ms", "10", "--help"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "--address" in done.stdout


# Strength


@pytest.mark.slow
@pytest.mark.timeout(600)  # 240 games at 10 ms a decision: 60-90 s here, near the suite's 120 s
@pytest.mark.parametrize("table_size", [4, 5])
def test_expert_finishes_ahead_of_strong(table_size: int) -> None:
    expert = policy.Expert(budget=0.01, seed=11)
    results = evaluate.match(expert, evaluate.NAMES, table_size, 240, 11, Ruleset())
    places: dict[str, list[int]] = {}
    for order in results:
        for place, name in enumerate(order, start=1):
            places.setdefault(name, []).append(place)
    mean = {name: sum(p) / len(p) for name, p in places.items()}
    assert mean["expert"] < mean["strong"], evaluate.report(results)
