"""Properties of random legal games over random rulesets (2..6 players)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from engine_support import (
    MAX_EVENTS,
    Game,
    candidate_actions,
    count_dice,
    games,
    is_raise,
    may_change_face,
    opener_after_out,
    oracle_legal,
    players_left,
    property_settings,
    replay,
    seat_left_of,
)
from hypothesis import given
from hypothesis import strategies as st

from engine import (
    Bid,
    Calza,
    Dudo,
    FaultPenalty,
    GameState,
    IllegalActionError,
    Phase,
    RoundEnd,
    apply,
    bid_floors,
    can_calza,
    can_dudo,
    is_legal,
    legal_actions,
    observe,
)
from engine.game import seat_options


@given(games())
@property_settings(150)
def test_every_game_ends_with_a_full_finishing_order(game: Game) -> None:
    final = game.final
    assert final.is_over, f"not over after {MAX_EVENTS} events"
    players = final.players
    winner = final.winner
    assert winner is not None
    assert [s for s in range(players) if final.dice[s] > 0] == [winner]
    assert sorted(final.order) == list(range(players))
    # Winner first, then the others in reverse order of elimination.
    eliminated = [
        seat
        for t in game.transitions
        for seat in range(players)
        if t.before.dice[seat] > 0 and t.after.dice[seat] == 0
    ]
    assert final.order == (winner, *reversed(eliminated))


@given(games())
@property_settings(150)
def test_bids_strictly_rise_within_a_round(game: Game) -> None:
    for t in game.transitions:
        if not isinstance(t.event.action, Bid):
            continue
        bid = t.event.action
        standing = t.before.standing
        previous = None if standing is None else standing.bid
        assert bid != previous
        assert is_raise(
            t.before.ruleset,
            previous,
            bid,
            palifico=t.before.palifico,
            face_free=may_change_face(t.before, t.event.seat),
            dice_in_play=t.before.dice_in_play,
        ), f"{bid} does not raise {previous}"
        assert t.after.bids == (*t.before.bids, t.after.bids[-1])
        assert t.after.standing is not None and t.after.standing.bid == bid


@given(games())
@property_settings(150)
def test_dice_stay_in_bounds_and_only_calza_adds_one(game: Game) -> None:
    rules = game.start.ruleset
    cap = rules.dice_per_player if rules.calza_max_dice is None else rules.calza_max_dice
    limit = max(rules.dice_per_player, cap)
    for t in game.transitions:
        assert all(0 <= d <= limit for d in t.after.dice)
        gained = [s for s in range(t.after.players) if t.after.dice[s] > t.before.dice[s]]
        if sum(t.after.dice) > sum(t.before.dice):
            outcome = t.after.last_outcome
            assert isinstance(t.event.action, Calza)
            assert outcome is not None and outcome.end is RoundEnd.CALZA
            assert gained == [t.event.seat]
            assert sum(t.after.dice) == sum(t.before.dice) + 1
        else:
            assert gained == []
        # A seat that is out never comes back.
        assert all(t.after.dice[s] == 0 for s in range(t.after.players) if t.before.dice[s] == 0)


def _check_dudo_or_calza(t: GameState, after: GameState, seat: int, action: Dudo | Calza) -> None:
    standing = t.standing
    assert standing is not None
    bid = standing.bid
    counted = count_dice(t.hands, bid.face, t.palifico)
    outcome = after.last_outcome
    assert outcome is not None
    assert outcome.counted == counted
    assert outcome.hands == t.hands  # everything is shown at the end of a round
    dice = list(t.dice)
    if isinstance(action, Dudo):
        changed = seat if counted >= bid.count else standing.seat
        dice[changed] -= 1
    else:
        changed = seat
        if counted != bid.count:
            dice[seat] -= 1
        elif dice[seat] < _calza_cap(t):
            dice[seat] += 1
    assert list(after.dice) == dice
    assert after.round == t.round + 1
    assert after.hands == ((),) * t.players and after.bids == ()
    _check_next_opener(t, after, changed)


def _calza_cap(state: GameState) -> int:
    """`calza_max_dice`, or `dice_per_player` when it is unset."""
    rules = state.ruleset
    return rules.dice_per_player if rules.calza_max_dice is None else rules.calza_max_dice


def _check_next_opener(before: GameState, after: GameState, changed: int) -> None:
    alive = [s for s, d in enumerate(after.dice) if d > 0]
    if len(alive) == 1:
        assert after.phase is Phase.OVER and after.winner == alive[0]
        return
    assert after.phase is Phase.DEAL
    held = after.dice[changed]
    rules = before.ruleset
    out_opener = opener_after_out(rules, after.dice, changed)
    assert after.to_act == (changed if held > 0 else out_opener)
    drop_to_one = before.dice[changed] > 1 and held == 1
    repeat = rules.palifico_once and changed in before.palifico_used
    enough = players_left(after.dice) >= rules.palifico_min_players
    assert after.palifico == (rules.palifico and drop_to_one and not repeat and enough)


def _check_fault(before: GameState, after: GameState, seat: int) -> None:
    outcome = after.last_outcome
    assert outcome is not None and outcome.end is RoundEnd.FAULT
    assert all(hand == () for hand in outcome.hands)  # an abandoned round shows nobody's dice
    if before.phase is Phase.BIDDING:
        assert after.round > before.round  # the replayed round gets fresh dice
    others = [s for s in range(before.players) if s != seat]
    assert [after.dice[s] for s in others] == [before.dice[s] for s in others]
    if before.ruleset.fault_penalty is FaultPenalty.LOSE_DIE:
        assert after.dice[seat] == before.dice[seat] - 1
        _check_next_opener(before, after, seat)
        return
    assert after.dice[seat] == 0
    alive = [s for s, d in enumerate(after.dice) if d > 0]
    if len(alive) == 1:
        assert after.phase is Phase.OVER and after.winner == alive[0]
        return
    offender_opens = before.opener == seat
    rules = before.ruleset
    out_opener = opener_after_out(rules, after.dice, seat)
    assert after.to_act == (out_opener if offender_opens else before.opener)
    enough = players_left(after.dice) >= rules.palifico_min_players
    assert after.palifico == (before.palifico and not offender_opens and enough)


@given(games())
@property_settings(200)
def test_every_transition_follows_the_rules(game: Game) -> None:
    for t in game.transitions:
        before, after, event = t.before, t.after, t.event
        if event.kind == "deal":
            assert after.phase is Phase.BIDDING and after.to_act == before.opener
            assert [len(h) for h in after.hands] == list(before.dice)
            assert after.palifico == before.palifico
        elif event.kind == "fault":
            _check_fault(before, after, event.seat)
        elif isinstance(event.action, Bid):
            assert after.dice == before.dice and after.hands == before.hands
            assert after.to_act == seat_left_of(before.dice, event.seat)
        else:
            assert isinstance(event.action, Dudo | Calza)
            _check_dudo_or_calza(before, after, event.seat, event.action)


def _check_agreement(state: GameState) -> None:
    for seat in range(-1, state.players + 1):
        actions = legal_actions(state, seat)
        listed = list(actions)
        assert len(listed) == len(set(listed)) == len(actions)
        assert list(actions) == listed  # a collection: it can be walked again
        listing = set(listed)
        for action in candidate_actions(state):
            legal = is_legal(state, seat, action)
            assert legal == (action in listing) == (action in actions), (seat, action)
            assert legal == oracle_legal(state, seat, action), (seat, action)
            if legal:
                apply(state, seat, action)
            else:
                with pytest.raises(IllegalActionError):
                    apply(state, seat, action)
        assert listing <= set(candidate_actions(state))


@given(games(), st.integers(0, 2**32 - 1))
@property_settings(60)
def test_legal_listing_is_legal_and_apply_agree(game: Game, pick: int) -> None:
    states = game.states
    sample = random.Random(pick).sample(states, min(3, len(states)))
    for state in [*sample, game.start, game.final]:
        _check_agreement(state)


def _floors_from_listing(state: GameState, seat: int) -> tuple[int, ...]:
    """For faces 1..6 the smallest count the seat may bid now, 0 when none."""
    bids = [a for a in legal_actions(state, seat) if isinstance(a, Bid)]
    return tuple(min((b.count for b in bids if b.face == face), default=0) for face in range(1, 7))


def _rotate(hand: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(die % 6 + 1 for die in hand)  # every die changes face


@given(games())
@property_settings(80)
def test_a_view_never_shows_other_seats_current_dice(game: Game) -> None:
    for state in game.states:
        for seat in range(state.players):
            view = observe(state, seat)
            assert view.my_dice == state.hands[seat]
            assert view.floors == _floors_from_listing(state, seat)
            for outcome in view.history:
                if outcome.end is RoundEnd.FAULT:
                    assert all(hand == () for hand in outcome.hands)
                elif state.phase is Phase.BIDDING:
                    assert outcome.round < state.round
            # Changing everyone else's dice must not change what this seat sees.
            hidden = tuple(h if s == seat else _rotate(h) for s, h in enumerate(state.hands))
            assert observe(replace(state, hands=hidden), seat) == view


@given(games())
@property_settings(80)
def test_the_same_seed_replays_the_same_game(game: Game) -> None:
    assert replay(game) == game.states


@given(games())
@property_settings(60)
def test_a_seats_options_at_once_are_its_floors_dudo_and_calza_asked_apart(game: Game) -> None:
    """Views and legal listings read the three in one pass (`seat_options`), for speed: at
    every moment of a game, for every seat (and seats outside the table), they agree."""
    for transition in game.transitions:
        state = transition.before
        for seat in range(-1, state.players + 1):
            apart = (bid_floors(state, seat), can_dudo(state, seat), can_calza(state, seat))
            assert seat_options(state, seat) == apart
