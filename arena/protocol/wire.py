"""The one place where protobuf messages and engine values meet.

The referee turns an engine `Observation` into an `ActionRequest` here, and
a bot's `Action` message back into an engine action; the bot kit does the
reverse of both. Nothing else in the arena touches `arena.protocol._proto` message
fields, so a protocol change is a change to this module and the .proto file.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import engine
from arena.protocol._proto.perudo.v1 import referee_pb2 as pb
from arena.protocol.faults import Fault, FaultKind
from engine import (
    CalzaRule,
    FaultPenalty,
    MalformedActionError,
    Observation,
    Opener,
    PalificoFaceChange,
    PlacedBid,
    RoundEnd,
    RoundOutcome,
    Ruleset,
    Side,
)

PROTOCOL_VERSION = 1


@dataclass(frozen=True, slots=True)
class Pass:
    """Declining an out-of-turn calza offer; a protocol answer, not a game action."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
Answer = engine.Action | Pass
"""What a bot may answer a request with."""

_OPENER = {Opener.ROLLOFF: pb.OPENER_ROLLOFF, Opener.SEAT0: pb.OPENER_SEAT0}
_CALZA = {
    CalzaRule.OFF: pb.CALZA_RULE_OFF,
    CalzaRule.TURN: pb.CALZA_RULE_TURN,
    CalzaRule.ANY: pb.CALZA_RULE_ANY,
}
_PENALTY = {
    FaultPenalty.ELIMINATE: pb.FAULT_PENALTY_ELIMINATE,
    FaultPenalty.LOSE_DIE: pb.FAULT_PENALTY_LOSE_DIE,
}
_FACE_CHANGE = {
    PalificoFaceChange.NONE: pb.PALIFICO_FACE_CHANGE_NONE,
    PalificoFaceChange.OTHERS: pb.PALIFICO_FACE_CHANGE_OTHERS,
    PalificoFaceChange.ALL: pb.PALIFICO_FACE_CHANGE_ALL,
}
_SIDE = {Side.LEFT: pb.SIDE_LEFT, Side.RIGHT: pb.SIDE_RIGHT}
_END = {
    RoundEnd.DUDO: pb.ROUND_END_DUDO,
    RoundEnd.CALZA: pb.ROUND_END_CALZA,
    RoundEnd.FAULT: pb.ROUND_END_FAULT,
}


_FAULT_KIND = {
    FaultKind.TIMEOUT: pb.FAULT_KIND_TIMEOUT,
    FaultKind.ILLEGAL_ACTION: pb.FAULT_KIND_ILLEGAL_ACTION,
    FaultKind.MALFORMED_MESSAGE: pb.FAULT_KIND_MALFORMED_MESSAGE,
    FaultKind.DISCONNECT: pb.FAULT_KIND_DISCONNECT,
    FaultKind.CRASH: pb.FAULT_KIND_CRASH,
    FaultKind.STALL: pb.FAULT_KIND_STALL,
}
_OPENER_IN = {v: k for k, v in _OPENER.items()}
_CALZA_IN = {v: k for k, v in _CALZA.items()}
_PENALTY_IN = {v: k for k, v in _PENALTY.items()}
_FACE_CHANGE_IN = {v: k for k, v in _FACE_CHANGE.items()}
_SIDE_IN = {v: k for k, v in _SIDE.items()}
_END_IN = {v: k for k, v in _END.items()}
_FAULT_KIND_IN: dict[int, FaultKind] = {v: k for k, v in _FAULT_KIND.items()}


def ruleset_to_proto(ruleset: Ruleset) -> pb.Ruleset:
    return pb.Ruleset(
        dice_per_player=ruleset.dice_per_player,
        opener=_OPENER[ruleset.opener],
        lower_face_with_higher_count=ruleset.lower_face_with_higher_count,
        calza=_CALZA[ruleset.calza],
        palifico=ruleset.palifico,
        palifico_once=ruleset.palifico_once,
        palifico_one_die_may_change_face=ruleset.palifico_one_die_may_change_face,
        fault_penalty=_PENALTY[ruleset.fault_penalty],
        palifico_face_change=_FACE_CHANGE[ruleset.palifico_face_change],
        palifico_min_players=ruleset.palifico_min_players,
        open_on_pacos=ruleset.open_on_pacos,
        opener_after_elimination=_SIDE[ruleset.opener_after_elimination],
        calza_max_dice=ruleset.calza_max_dice or 0,
    )


def ruleset_from_proto(msg: pb.Ruleset) -> Ruleset:
    """The ruleset a message carries; fields a sender from before them left at 0 read as
    the rulebook's, the face change as its old bool said."""
    old_face_change = (
        PalificoFaceChange.ALL if msg.palifico_one_die_may_change_face else PalificoFaceChange.NONE
    )
    return Ruleset(
        dice_per_player=msg.dice_per_player,
        opener=_OPENER_IN[msg.opener],
        lower_face_with_higher_count=msg.lower_face_with_higher_count,
        calza=_CALZA_IN[msg.calza],
        palifico=msg.palifico,
        palifico_once=msg.palifico_once,
        palifico_face_change=_FACE_CHANGE_IN.get(msg.palifico_face_change, old_face_change),
        palifico_min_players=msg.palifico_min_players or 2,
        open_on_pacos=msg.open_on_pacos,
        opener_after_elimination=_SIDE_IN.get(msg.opener_after_elimination, Side.LEFT),
        calza_max_dice=msg.calza_max_dice or None,
        fault_penalty=_PENALTY_IN[msg.fault_penalty],
    )


def fault_kind_to_proto(kind: FaultKind) -> pb.FaultKind:
    return _FAULT_KIND[kind]


def fault_kind_from_proto(number: int) -> FaultKind | None:
    """The kind a message names; None for a number no kind has here (a newer sender's)."""
    return _FAULT_KIND_IN.get(number)


def answer_to_proto(answer: Answer) -> pb.Action:
    if isinstance(answer, engine.Bid):
        return pb.Action(kind=pb.ACTION_KIND_BID, count=answer.count, face=answer.face)
    if isinstance(answer, engine.Dudo):
        return pb.Action(kind=pb.ACTION_KIND_DUDO)
    if isinstance(answer, engine.Calza):
        return pb.Action(kind=pb.ACTION_KIND_CALZA)
    if isinstance(answer, Pass):
        return pb.Action(kind=pb.ACTION_KIND_PASS)
    raise TypeError(f"not an answer: {answer!r}")


def answer_from_proto(msg: pb.Action) -> Answer:
    """The answer a bot sent; `MalformedActionError` when it is not one."""
    kind = msg.kind
    if kind == pb.ACTION_KIND_BID:
        return _bid(msg.count, msg.face)
    if kind != pb.ACTION_KIND_UNSPECIFIED and (msg.count or msg.face):
        raise MalformedActionError(f"only a bid has a count and a face; got {_describe(msg)}")
    if kind == pb.ACTION_KIND_DUDO:
        return engine.DUDO
    if kind == pb.ACTION_KIND_CALZA:
        return engine.CALZA
    if kind == pb.ACTION_KIND_PASS:
        return PASS
    raise MalformedActionError(f"the action has no valid kind; got {_describe(msg)}")


def _describe(msg: pb.Action) -> str:
    return f"kind={msg.kind} count={msg.count} face={msg.face}"


def placed_bid_from_proto(msg: pb.Bid) -> PlacedBid:
    return _placed_bid(msg.seat, msg.count, msg.face)


@functools.lru_cache(maxsize=4096)
def _placed_bid(seat: int, count: int, face: int) -> PlacedBid:
    """One shared value per bid: every request repeats the bids of its round so far, and
    building two frozen dataclasses for each was the largest part of a bot's reading one."""
    return PlacedBid(seat, _bid(count, face))


@functools.lru_cache(maxsize=4096)
def _bid(count: int, face: int) -> engine.Bid:
    """One shared value per bid, on both sides: a frozen dataclass costs the referee more to
    build for each answer than reading the whole reply does."""
    return engine.Bid(count, face)


def outcome_to_proto(outcome: RoundOutcome) -> pb.RoundResult:
    result = pb.RoundResult(
        round=outcome.round,
        end=_END[outcome.end],
        caller_seat=outcome.caller,
        counted=outcome.counted,
        changed_seat=outcome.changed_seat,
        dice_change=outcome.dice_change,
        palifico=outcome.palifico,
    )
    # Added in place (building messages to copy in is slower), by an `add` looked up once.
    add_hand = result.hands.add
    for hand in outcome.hands:
        add_hand(dice=hand)
    if outcome.standing is not None:
        standing = result.bid
        standing.seat = outcome.standing.seat
        standing.count = outcome.standing.bid.count
        standing.face = outcome.standing.bid.face
    add_bid = result.bids.add
    for placed in outcome.bids:
        said = placed.bid
        add_bid(seat=placed.seat, count=said.count, face=said.face)
    return result


def outcome_from_proto(msg: pb.RoundResult) -> RoundOutcome:
    return RoundOutcome(
        round=msg.round,
        end=_END_IN[msg.end],
        caller=msg.caller_seat,
        standing=placed_bid_from_proto(msg.bid) if msg.HasField("bid") else None,
        counted=msg.counted,
        hands=tuple([tuple(hand.dice) for hand in msg.hands]),
        changed_seat=msg.changed_seat,
        dice_change=msg.dice_change,
        palifico=msg.palifico,
        bids=tuple([_placed_bid(b.seat, b.count, b.face) for b in msg.bids]),
    )


def encode(message: pb.RefereeMessage | bytes) -> bytes:
    """A message for the stream, which takes requests already encoded by `RequestBuilder`."""
    return message if isinstance(message, bytes) else message.SerializeToString()


def _varint(value: int) -> bytes:
    if value < 0x4000:  # every request's length (and any under 16 KiB): no loop
        return bytes((value,)) if value < 0x80 else bytes((value & 0x7F | 0x80, value >> 7))
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


_REQUEST_KEY = _varint(pb.RefereeMessage.REQUEST_FIELD_NUMBER << 3 | 2)  # length-delimited


class RequestBuilder:
    """Builds the requests of one game, encoded.

    A request repeats what its seat was already told: the game's fixed fields
    and the rounds that ended. Those parts are encoded once per game and each
    request is their concatenation with its own fields, encoded fresh; the
    protobuf encoding allows fields in any order, so the result is one
    ordinary `RefereeMessage`. Copying round results into a message for every
    request would cost the referee more than the rest of its work on a decision.
    """

    def __init__(
        self,
        game_id: str,
        players: Sequence[str],
        ruleset: pb.Ruleset,
        move_time_ms: int,
        bank_ms: int = 0,
        increment_ms: int = 0,
    ) -> None:
        clock = pb.TimeControl(
            move_time_ms=move_time_ms, bank_ms=bank_ms, increment_ms=increment_ms
        )
        self._banked = bool(bank_ms or increment_ms)
        """Without a bank, every request's time left is the move time: a fixed field."""
        self._fixed = pb.ActionRequest(
            game_id=game_id,
            players=players,
            ruleset=ruleset,
            time_control=clock,
            time_left_ms=0 if self._banked else move_time_ms,
        ).SerializeToString()
        self._move_time_ms = move_time_ms
        self._results: list[bytes] = []

    def build(
        self,
        obs: Observation,
        *,
        request_id: int,
        offer: bool,
        history: Sequence[RoundOutcome],
        told: int,
        bank_left_ms: int = 0,
    ) -> bytes:
        """The request for one decision of `obs.seat`, with the rounds after `told` as news,
        telling it the move time and `bank_left_ms` of its bank."""
        for outcome in history[len(self._results) :]:
            part = pb.ActionRequest(results=[outcome_to_proto(outcome)])
            self._results.append(part.SerializeToString())
        own = pb.ActionRequest()
        own.request_id = request_id
        own.kind = pb.REQUEST_KIND_CALZA_OFFER if offer else pb.REQUEST_KIND_TURN
        own.seat = obs.seat
        own.round = obs.round
        own.my_dice.extend(obs.my_dice)
        own.dice_counts.extend(obs.dice)
        add_bid = own.bids.add  # looked up once: a request repeats its round's bids
        for placed in obs.bids:
            said = placed.bid
            add_bid(seat=placed.seat, count=said.count, face=said.face)
        own.palifico = obs.palifico
        own.min_count.extend(obs.floors)
        own.dudo_allowed = obs.can_dudo
        own.calza_allowed = obs.can_calza
        own.dice_in_play = obs.dice_in_play
        if self._banked:
            own.time_left_ms = self._move_time_ms + bank_left_ms
            own.bank_left_ms = bank_left_ms
        request = b"".join(
            (self._fixed, own.SerializeToString(), *self._results[told : len(history)])
        )
        return _REQUEST_KEY + _varint(len(request)) + request


def encode_request(
    obs: Observation,
    *,
    request_id: int,
    offer: bool,
    game_id: str,
    players: Sequence[str],
    ruleset: pb.Ruleset,
    news: Iterable[RoundOutcome],
    time_left_ms: int,
) -> bytes:
    """One request on its own; `news` are rounds the seat has not been told of."""
    builder = RequestBuilder(game_id, players, ruleset, time_left_ms)
    return builder.build(obs, request_id=request_id, offer=offer, history=tuple(news), told=0)


View = TypeVar("View", bound=Observation)


def observation_from_proto(
    request: pb.ActionRequest, history: tuple[RoundOutcome, ...], ruleset: Ruleset | None = None
) -> Observation:
    """The bot's view, rebuilt from a request and the rounds the bot has been told of.

    `ruleset` is the game's, read from an earlier request: it never changes within a game,
    so a bot that keeps it spares reading and checking it again for every decision.
    """
    return view_from_proto(Observation, request, history, ruleset)


def view_from_proto(
    view: Callable[..., View],
    request: pb.ActionRequest,
    history: tuple[RoundOutcome, ...],
    ruleset: Ruleset | None = None,
    **extra: Any,
) -> View:
    """`observation_from_proto` as an `Observation` subclass with `extra` fields (the kit's
    `TimedObservation`): built once, not copied field by field out of a plain one."""
    bids = tuple([_placed_bid(b.seat, b.count, b.face) for b in request.bids])
    to_act = request.seat
    if request.kind == pb.REQUEST_KIND_CALZA_OFFER and bids:
        # An offer goes to a seat other than the one to act: the next seat with
        # dice after the bidder.
        to_act = engine.left_of(tuple(request.dice_counts), bids[-1].seat)
    return view(
        seat=request.seat,
        ruleset=ruleset_from_proto(request.ruleset) if ruleset is None else ruleset,
        round=request.round,
        my_dice=tuple(request.my_dice),
        dice=tuple(request.dice_counts),
        bids=bids,
        palifico=request.palifico,
        to_act=to_act,
        floors=tuple(request.min_count),
        can_dudo=request.dudo_allowed,
        can_calza=request.calza_allowed,
        history=history,
        **extra,
    )


def game_over_to_proto(
    *,
    game_id: str,
    seat: int,
    order: Sequence[int],
    players: Sequence[str],
    news: Iterable[RoundOutcome],
    fault: Fault | None,
) -> pb.RefereeMessage:
    message = pb.GameOver(
        game_id=game_id,
        seat=seat,
        order=order,
        players=players,
        results=[outcome_to_proto(o) for o in news],
    )
    if fault is not None:
        message.fault.CopyFrom(
            pb.Fault(kind=_FAULT_KIND[fault.kind], detail=fault.detail, request_id=fault.request_id)
        )
    return pb.RefereeMessage(game_over=message)
