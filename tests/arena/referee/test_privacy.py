"""No bot ever learns another seat's dice before the round that holds them has ended.

Three raw-protocol bot processes record every RefereeMessage they receive, as
the bytes arrived; after the game the recordings are checked against the
referee's own replay record (every deal, by round).
"""

from __future__ import annotations

from referee_harness import Arena, read_record, replay, run

from arena.protocol.messages import referee as pb
from arena.records import Deal, Decision, FaultEvent
from arena.referee.match import GameRecord
from engine import CalzaRule, FaultPenalty, Opener, Ruleset

NAMES = ("ann", "bob", "cy")


def check_result(result: pb.RoundResult, deals: dict[int, list[list[int]]]) -> None:
    hands = [list(hand.dice) for hand in result.hands]
    if result.end == pb.ROUND_END_FAULT:
        assert hands == [[]] * len(hands), "an abandoned round shows nobody's dice"
    else:
        assert hands == deals[result.round]


def check_seat(record: GameRecord, seat: int, messages: list[pb.RefereeMessage]) -> None:
    game_id = record.spec.game_id
    deals = {e.round: [list(h) for h in e.hands] for e in record.events if isinstance(e, Deal)}
    requests = [m.request for m in messages if m.WhichOneof("kind") == "request"]
    overs = [m.game_over for m in messages if m.WhichOneof("kind") == "game_over"]
    asked = [e for e in record.events if isinstance(e, (Decision, FaultEvent)) and e.seat == seat]
    assert len(requests) == len(asked), "the recording holds every request the seat was sent"
    assert len(overs) == 1

    told: list[int] = []
    for request in requests:
        assert (request.game_id, request.seat) == (game_id, seat)
        hands = deals[request.round]
        # Its own dice of this round, and of everyone else only how many they hold.
        assert list(request.my_dice) == hands[seat]
        assert list(request.dice_counts) == [len(h) for h in hands]
        for result in request.results:
            assert result.round < request.round, "a result for a round still being played"
            check_result(result, deals)
            told.append(result.round)
    over = overs[0]
    assert (over.game_id, over.seat, tuple(over.order)) == (game_id, seat, record.order)
    for result in over.results:
        check_result(result, deals)
        told.append(result.round)
    # Every round that was dealt ended, and the seat was told of each one once, in order.
    assert told == sorted(deals)


def test_requests_carry_only_the_seats_own_dice(live: Arena) -> None:
    # Calza "any" adds out-of-turn offers; lose_die keeps the faulting seat in,
    # so the others are told of an abandoned round too.
    ruleset = Ruleset(opener=Opener.SEAT0, calza=CalzaRule.ANY, fault_penalty=FaultPenalty.LOSE_DIE)
    files = {name: live.tmp / f"{name}.b64" for name in NAMES}

    async def main() -> None:
        async with live.serving():
            live.spawn("raw_bot", NAMES[0], BOT_RECORD=files[NAMES[0]], BOT_MODE="illegal")
            for name in NAMES[1:]:
                live.spawn("raw_bot", name, BOT_RECORD=files[name])
            await live.wait_connected(NAMES)
            record = await live.play(NAMES, ruleset, game_id="private")
            await live.referee.stop()
            for proc in live.procs:
                assert await live.wait_exit(proc) == 0

        assert replay(record).order == record.order
        assert any(isinstance(e, Decision) and e.declined for e in record.events), "no calza offer"
        [fault] = record.faults
        recorded = {name: read_record(files[name]) for name in NAMES}
        for seat, name in enumerate(NAMES):
            messages = recorded[name]
            kinds = [m.WhichOneof("kind") for m in messages]
            assert kinds[0] == "welcome" and kinds[-1] == "goodbye"
            check_seat(record, seat, messages[1:-1])

        # The faulting bot is told which of its requests was refused, and why.
        first = next(m.request for m in recorded[NAMES[0]] if m.WhichOneof("kind") == "request")
        told = next(m.game_over for m in recorded[NAMES[0]] if m.WhichOneof("kind") == "game_over")
        assert told.fault.kind == pb.FAULT_KIND_ILLEGAL_ACTION
        assert told.fault.request_id == first.request_id == fault.fault.request_id
        assert "pacos" in told.fault.detail

    run(main())
