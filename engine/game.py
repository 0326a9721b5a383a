"""The transitions of a game: deal, act, fault.

Chance is an explicit input: `deal` takes the dice, so the same sequence of
deals and actions always gives the same game, and `engine.dice` decides where
dice come from. Every function here is pure and returns a new `GameState`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

from engine.actions import FACES, Action, Bid, Calza, Dudo
from engine.bidding import count_for, floors, refuse_bid
from engine.errors import (
    DealError,
    IllegalActionError,
    MalformedActionError,
    NotInGameError,
    Rule,
    SetupError,
)
from engine.ruleset import CalzaRule, FaultPenalty, PalificoFaceChange, Ruleset, Side
from engine.state import GameState, Phase, PlacedBid, RoundEnd, RoundOutcome, left_of, right_of

NO_FLOORS = (0, 0, 0, 0, 0, 0)
_FACE_SET = frozenset(FACES)
_INT_ONLY = frozenset({int})


def new_game(
    ruleset: Ruleset,
    players: int,
    opener: int,
    *,
    dice: Sequence[int] | None = None,
    palifico: bool = False,
    palifico_used: Iterable[int] = (),
) -> GameState:
    """A game waiting for its first deal, opened by `opener`.

    `dice`, `palifico` and `palifico_used` set up a position mid-game (for rule
    cases); seats that start with no dice count as out before everyone else.
    """
    counts = tuple(dice) if dice is not None else (ruleset.dice_per_player,) * players
    if players < 2 or len(counts) != players:
        raise SetupError(f"a game needs 2 or more seats with a dice count each, got {counts}")
    if any(not 0 <= c <= ruleset.most_dice for c in counts):
        raise SetupError(f"dice counts must be 0..{ruleset.most_dice}, got {counts}")
    if sum(1 for c in counts if c > 0) < 2:
        raise SetupError(f"a game needs 2 or more seats with dice, got {counts}")
    if not 0 <= opener < players or counts[opener] == 0:
        raise SetupError(f"the opener must be a seat with dice, got {opener}")
    used = frozenset(palifico_used)
    if any(not 0 <= s < players for s in used):
        raise SetupError(f"palifico_used names seats outside 0..{players - 1}: {sorted(used)}")
    return GameState(
        ruleset=ruleset,
        dice=counts,
        phase=Phase.DEAL,
        round=1,
        opener=opener,
        to_act=opener,
        palifico=palifico and _palifico_allowed(ruleset, counts),
        hands=((),) * players,
        bids=(),
        palifico_used=used,
        out=tuple(s for s, c in enumerate(counts) if c == 0),
        history=(),
    )


def deal(state: GameState, hands: Sequence[Sequence[int]]) -> GameState:
    """Start the next round with these dice, one hand per seat."""
    if state.phase is not Phase.DEAL:
        raise DealError(
            f"dice can be dealt only between rounds (the game is in {state.phase.value})"
        )
    dealt = checked_hands(state.dice, hands)
    return GameState(  # in order, no keywords: see `apply`
        state.ruleset,
        state.dice,
        Phase.BIDDING,
        state.round,
        state.opener,
        state.opener,
        state.palifico,
        dealt,
        (),
        state.palifico_used,
        state.out,
        state.history,
    )


def checked_hands(
    dice: tuple[int, ...], hands: Sequence[Sequence[int]]
) -> tuple[tuple[int, ...], ...]:
    """`hands` as tuples, once they fit `dice` (one hand per seat, faces 1..6).

    Shared by `deal` and `engine.determinize`, so dice filled in for a view
    are held to exactly the rules of dice dealt by the referee.
    """
    if len(hands) != len(dice):
        raise DealError(f"a deal needs one hand per seat ({len(dice)}), got {len(hands)}")
    dealt = tuple(tuple(hand) for hand in hands)
    # Every die at once, as a deal that fits is checked on every round; only one that
    # does not is walked seat by seat, to say which seat's hand is wrong.
    faces = tuple(chain.from_iterable(dealt))
    if (
        tuple(map(len, dealt)) != tuple(dice)
        or not _FACE_SET.issuperset(faces)
        or not _INT_ONLY.issuperset(map(type, faces))
    ):
        for seat, (hand, count) in enumerate(zip(dealt, dice, strict=True)):
            if len(hand) != count:
                raise DealError(
                    f"seat {seat} holds {count} dice but was dealt {len(hand)}: {list(hand)}"
                )
            # Exactly int: True == 1 and 1.0 == 1 would pass the face check.
            if not _FACE_SET.issuperset(hand) or not _INT_ONLY.issuperset(map(type, hand)):
                raise DealError(
                    f"seat {seat} was dealt a die that is not a face 1..6: {list(hand)}"
                )
    return dealt


def refusal(state: GameState, seat: int, action: Action) -> IllegalActionError | None:
    """Why `seat` may not take `action` now, or None when it may."""
    if state.phase is not Phase.BIDDING:
        if state.phase is Phase.OVER:
            return IllegalActionError(Rule.GAME_OVER, f"{action}: the game is over")
        return IllegalActionError(Rule.NO_ROUND, f"{action}: no round is in progress")
    dice = state.dice
    if not 0 <= seat < len(dice) or dice[seat] == 0:
        return IllegalActionError(Rule.NOT_IN_GAME, f"{action}: seat {seat} is not in the game")
    # A bid first, as most actions are: the kinds exclude each other, so each meets the
    # same checks in the same order as if calza and dudo were asked about before it.
    if isinstance(action, Bid):
        if seat != state.to_act:
            return _not_your_turn(state, seat, action)
        bids = state.bids
        standing = bids[-1].bid if bids else None
        palifico = state.palifico
        free = palifico and _face_free(state, seat)
        return refuse_bid(state.ruleset, standing, palifico, free, sum(dice), action)
    if isinstance(action, Calza):
        return _refuse_calza(state, seat)
    if seat != state.to_act:
        return _not_your_turn(state, seat, action)
    if isinstance(action, Dudo):
        if not state.bids:
            return IllegalActionError(Rule.NO_STANDING_BID, "dudo: there is no bid to challenge")
        return None
    raise MalformedActionError(f"not an action: {action!r} (expected a Bid, Dudo or Calza)")


def _not_your_turn(state: GameState, seat: int, action: Action) -> IllegalActionError:
    return IllegalActionError(
        Rule.NOT_YOUR_TURN, f"{action}: it is seat {state.to_act}'s turn, not seat {seat}'s"
    )


def _calza_rule_broken(state: GameState, seat: int) -> Rule | None:
    """The calza rule `seat` would break, without building an error: views ask often."""
    rule = state.ruleset.calza
    if rule is CalzaRule.OFF:
        return Rule.CALZA_OFF
    if not state.bids:
        return Rule.NO_STANDING_BID
    if state.bids[-1].seat == seat:
        return Rule.CALZA_OWN_BID
    if rule is CalzaRule.TURN and seat != state.to_act:
        return Rule.CALZA_OUT_OF_TURN
    return None


_CALZA_REFUSALS = {
    Rule.CALZA_OFF: "calza: calza is off in this ruleset",
    Rule.NO_STANDING_BID: "calza: there is no bid to call",
    Rule.CALZA_OWN_BID: "calza: nobody may calza their own bid",
    Rule.CALZA_OUT_OF_TURN: "calza: only the player to act (seat {to_act}) may call it",
}


def _refuse_calza(state: GameState, seat: int) -> IllegalActionError | None:
    broken = _calza_rule_broken(state, seat)
    if broken is None:
        return None
    return IllegalActionError(broken, _CALZA_REFUSALS[broken].format(to_act=state.to_act))


def is_legal(state: GameState, seat: int, action: Action) -> bool:
    """Whether `seat` may take `action` now: `refusal` without building the reason."""
    return refusal(state, seat, action) is None


def bid_floors(state: GameState, seat: int) -> tuple[int, ...]:
    """For faces 1..6, the smallest count `seat` may bid now (0 = may not bid it)."""
    if state.phase is not Phase.BIDDING or seat != state.to_act:
        return NO_FLOORS
    return _floors_to_act(state, seat)


def _floors_to_act(state: GameState, seat: int) -> tuple[int, ...]:
    """`bid_floors` for the seat to act in a round in progress."""
    bids = state.bids
    standing = bids[-1].bid if bids else None
    palifico = state.palifico
    free = palifico and _face_free(state, seat)
    return floors(state.ruleset, standing, palifico, free, sum(state.dice))


def seat_options(state: GameState, seat: int) -> tuple[tuple[int, ...], bool, bool]:
    """`bid_floors`, `can_dudo` and `can_calza` of `seat` at once, as every view asks them:
    the checks they share are made once (the referee asks on every decision)."""
    if state.phase is not Phase.BIDDING:
        return NO_FLOORS, False, False
    dice = state.dice
    calza = 0 <= seat < len(dice) and dice[seat] > 0 and _calza_rule_broken(state, seat) is None
    if seat != state.to_act:
        return NO_FLOORS, False, calza
    return _floors_to_act(state, seat), bool(state.bids), calza


def _face_free(state: GameState, seat: int) -> bool:
    """Whether `seat` may name another face in this palifico round (`palifico_face_change`).

    The palifico player is the round's opener: it opened the round, and a
    fault that removes it ends the palifico (see `fault`).
    """
    rule = state.ruleset.palifico_face_change
    if rule is PalificoFaceChange.NONE or state.dice[seat] != 1:
        return False
    return rule is PalificoFaceChange.ALL or seat != state.opener


def _palifico_allowed(ruleset: Ruleset, dice: tuple[int, ...]) -> bool:
    """Whether palifico rounds are played at all with these players left in the game."""
    return ruleset.palifico and sum(1 for c in dice if c) >= ruleset.palifico_min_players


def _opener_after_out(ruleset: Ruleset, dice: tuple[int, ...], seat: int) -> int:
    """Who opens after `seat` went out: its left neighbour, or its right one."""
    if ruleset.opener_after_elimination is Side.RIGHT:
        return right_of(dice, seat)
    return left_of(dice, seat)


def can_dudo(state: GameState, seat: int) -> bool:
    """Whether `seat` may call dudo now; a view carries it so bots need not re-derive it."""
    return state.phase is Phase.BIDDING and seat == state.to_act and bool(state.bids)


def can_calza(state: GameState, seat: int) -> bool:
    """Whether `seat` may call calza now, on its turn or (calza `any`) out of it.

    Read off the same rule check as `refusal`, without building an error, since
    every view asks it for its seat.
    """
    return (
        state.phase is Phase.BIDDING
        and 0 <= seat < state.players
        and state.dice[seat] > 0
        and _calza_rule_broken(state, seat) is None
    )


def calza_offers(state: GameState) -> tuple[int, ...]:
    """Under calza `any`: who is offered an out-of-turn calza now, in order.

    Starting left of the bidder, every seat still in the round except the
    bidder and the seat to act (who may call calza on its own turn).
    """
    if state.ruleset.calza is not CalzaRule.ANY or state.phase is not Phase.BIDDING:
        return ()
    if not state.bids:
        return ()
    bidder = state.bids[-1].seat
    n = state.players
    seats = ((bidder + step) % n for step in range(1, n))
    return tuple(s for s in seats if state.dice[s] > 0 and s != state.to_act)


def apply(state: GameState, seat: int, action: Action) -> GameState:
    """`seat` takes `action`; raises `IllegalActionError` when the rules forbid it."""
    error = refusal(state, seat, action)
    if error is not None:
        raise error
    if isinstance(action, Bid):
        # Built field by field, in order (no keywords, no replace()): bids are most of a
        # game, and a frozen dataclass takes keywords a third slower.
        return GameState(
            state.ruleset,
            state.dice,
            state.phase,
            state.round,
            state.opener,
            left_of(state.dice, seat),
            state.palifico,
            state.hands,
            (*state.bids, PlacedBid(seat, action)),
            state.palifico_used,
            state.out,
            state.history,
        )
    standing = state.bids[-1]
    counted = count_for(state.hands, standing.bid.face, state.palifico)
    if isinstance(action, Dudo):
        loser = seat if counted >= standing.bid.count else standing.seat
        return _end_round(state, RoundEnd.DUDO, seat, counted, loser, -1)
    if counted == standing.bid.count:
        gain = 1 if state.dice[seat] < state.ruleset.calza_cap else 0
        return _end_round(state, RoundEnd.CALZA, seat, counted, seat, gain)
    return _end_round(state, RoundEnd.CALZA, seat, counted, seat, -1)


def _end_round(
    state: GameState, end: RoundEnd, caller: int, counted: int, changed: int, change: int
) -> GameState:
    outcome = RoundOutcome(
        round=state.round,
        end=end,
        caller=caller,
        standing=state.bids[-1],
        counted=counted,
        hands=state.hands,
        changed_seat=changed,
        dice_change=change,
        palifico=state.palifico,
        bids=state.bids,
    )
    return _after_change(state, outcome, changed, change, next_round=state.round + 1)


def _after_change(
    state: GameState, outcome: RoundOutcome, seat: int, change: int, next_round: int
) -> GameState:
    """Apply one seat's dice change, then settle who opens next and whether it is palifico."""
    before = state.dice[seat]
    after = before + change
    dice = (*state.dice[:seat], after, *state.dice[seat + 1 :])
    out = state.out
    used = state.palifico_used
    palifico = False
    if after == 0:
        out = (*out, seat)
    elif before > 1 and after == 1 and state.ruleset.palifico:
        repeat = state.ruleset.palifico_once and seat in used
        palifico = not repeat and _palifico_allowed(state.ruleset, dice)
        used = used | {seat}
    opener = seat if after > 0 else _opener_after_out(state.ruleset, dice, seat)
    return _between_rounds(state, dice, out, used, outcome, next_round, opener, palifico)


def _between_rounds(
    state: GameState,
    dice: tuple[int, ...],
    out: tuple[int, ...],
    used: frozenset[int],
    outcome: RoundOutcome,
    next_round: int,
    opener: int,
    palifico: bool,
) -> GameState:
    """The state after a round ended or was abandoned: the next deal, or the end of the game."""
    alive = [s for s, count in enumerate(dice) if count > 0]
    over = len(alive) == 1
    if over:
        opener, palifico = alive[0], False
    return GameState(  # in order, no keywords: see `apply`
        state.ruleset,
        dice,
        Phase.OVER if over else Phase.DEAL,
        next_round,
        opener,
        opener,
        palifico,
        ((),) * len(dice),
        (),
        used,
        out,
        (*state.history, outcome),
    )


def fault(state: GameState, seat: int) -> GameState:
    """`seat` commits a fault (an arena rule): the penalty of the ruleset applies.

    A round in progress is abandoned with nobody else's dice changed; the
    abandoned round's number is not reused, so the replay gets fresh dice.
    """
    if state.phase is Phase.OVER:
        raise NotInGameError(f"seat {seat} cannot commit a fault: the game is over")
    if not 0 <= seat < state.players or state.dice[seat] == 0:
        raise NotInGameError(f"seat {seat} cannot commit a fault: it is not in the game")
    in_round = state.phase is Phase.BIDDING
    next_round = state.round + 1 if in_round else state.round
    if state.ruleset.fault_penalty is FaultPenalty.LOSE_DIE:
        outcome = _fault_outcome(state, seat, -1)
        return _after_change(state, outcome, seat, -1, next_round)
    outcome = _fault_outcome(state, seat, -state.dice[seat])
    dice = (*state.dice[:seat], 0, *state.dice[seat + 1 :])
    # The same opener replays the round; a palifico round stays palifico
    # unless its palifico player (who opened it) is the one removed, or too few are left.
    opener = state.opener if state.opener != seat else _opener_after_out(state.ruleset, dice, seat)
    palifico = state.palifico and state.opener != seat and _palifico_allowed(state.ruleset, dice)
    out = (*state.out, seat)
    return _between_rounds(
        state, dice, out, state.palifico_used, outcome, next_round, opener, palifico
    )


def _fault_outcome(state: GameState, seat: int, change: int) -> RoundOutcome:
    return RoundOutcome(
        round=state.round,
        end=RoundEnd.FAULT,
        caller=seat,
        standing=state.bids[-1] if state.bids else None,
        counted=0,
        hands=((),) * state.players,
        changed_seat=seat,
        dice_change=change,
        palifico=state.palifico,
        bids=state.bids,
    )
