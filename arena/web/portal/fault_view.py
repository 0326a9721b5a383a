"""One fault of an author's bot, explained: what it was asked, what it did, where time went.

A fault's line in games.jsonl says only its kind and a detail. Its replay
holds the rest: the deal of its round (the bot's own dice), every decision
of the round before it (the bids so far), and the fault event itself with
the wall time the referee waited, the bot's CPU and its wait for a CPU, its
link's round trip and the credit a lag allowance gave it; the game line
adds whether the referee itself was held up at that request
(`GameLine.referee_late`). The author's n-th fault in the game line is the
n-th fault event at its seat in the replay: both are written in the order
the referee charged them.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.errors import ArenaError
from arena.protocol.faults import FaultRecord
from arena.records import Deal, Decision, FaultEvent, GameLine, LateDecision, Replay

FIRST_STEP = 2
"""The HTML replay's step of a replay's first event: its step 1 is the table's opening."""


class FaultNotFoundError(ArenaError):
    """The fault asked for is not in the game's record or its replay: the message says why."""


@dataclass(frozen=True, slots=True)
class Bid:
    """A decision of the round before the fault, as the page lists it."""

    player: str
    action: str
    ms: float


@dataclass(frozen=True, slots=True)
class FaultView:
    """What the fault page shows of one fault."""

    record: FaultRecord
    event: FaultEvent
    round: int
    dice: tuple[int, ...]
    """The bot's own dice in that round (empty if the replay has no deal before it)."""
    dice_in_play: int
    bids: tuple[Bid, ...]
    """The round's decisions before the fault, oldest first."""
    step: int
    """The HTML replay's step that shows the fault."""
    late: LateDecision | None
    """The referee's own hold-up at that request, if it recorded one."""
    earlier_ms: tuple[float, ...]
    """The bot's own decision times in the game before the fault, for a sense of its pace."""


def explain(line: GameLine, replay: Replay, name: str, number: int) -> FaultView:
    """The `number`-th (from 1) fault of `name` in the game; a FaultNotFoundError if it has
    none by that number, or the replay does not hold it."""
    records = [f for f in line.faults if f.bot == name]
    if not 1 <= number <= len(records) or name not in replay.players:
        raise FaultNotFoundError(f"{name} has no fault number {number} in game {line.game}")
    seat = replay.players.index(name)
    seen = 0
    deal: Deal | None = None
    bids: list[Bid] = []
    times: list[float] = []
    for index, event in enumerate(replay.events):
        if isinstance(event, Deal):
            deal, bids = event, []
        elif isinstance(event, Decision):
            if not event.declined:
                bids.append(Bid(replay.players[event.seat], event.action, event.ms))
            if event.seat == seat:
                times.append(event.ms)
        elif isinstance(event, FaultEvent) and event.seat == seat:
            seen += 1
            if seen == number:
                record = records[number - 1]
                return FaultView(
                    record,
                    event,
                    deal.round if deal is not None else record.round,
                    deal.hands[seat] if deal is not None and seat < len(deal.hands) else (),
                    sum(len(hand) for hand in deal.hands) if deal is not None else 0,
                    tuple(bids),
                    index + FIRST_STEP,
                    _late(line, seat, record.fault.request_id),
                    tuple(times),
                )
    raise FaultNotFoundError(
        f"the replay of game {line.game} holds {seen} faults of {name}, not {number}"
    )


def _late(line: GameLine, seat: int, request_id: int) -> LateDecision | None:
    return next(
        (d for d in line.referee_late if d.seat == seat and d.request_id == request_id), None
    )
