"""Every RoundResult carries every bid of its round, as the game's replay tells them."""

from __future__ import annotations

from pathlib import Path

from referee_harness import Arena, read_record, run

import engine
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from arena.records import Deal, Decision
from arena.referee.match import GameRecord

NAMES = ("alpha", "bravo", "charlie")


def bids_by_round(record: GameRecord) -> dict[int, list[tuple[int, int, int]]]:
    """The bids of each round, as the replay has them: (seat, count, face), in order."""
    rounds: dict[int, list[tuple[int, int, int]]] = {}
    current = 0
    for event in record.events:
        if isinstance(event, Deal):
            current = event.round
            rounds[current] = []
        elif isinstance(event, Decision) and not event.declined:
            action = engine.parse_action(event.action)
            if isinstance(action, engine.Bid):
                rounds[current].append((event.seat, action.count, action.face))
    return rounds


def results_told(path: Path) -> list[pb.RoundResult]:
    """The round results a recording bot was told, in requests and its game over."""
    told: list[pb.RoundResult] = []
    for message in read_record(path):
        kind = message.WhichOneof("kind")
        if kind == "request":
            told.extend(message.request.results)
        elif kind == "game_over":
            told.extend(message.game_over.results)
    return told


def test_every_round_result_carries_the_rounds_bids_in_order(live: Arena, tmp_path: Path) -> None:
    records = {name: tmp_path / f"{name}.record" for name in NAMES}

    async def main() -> GameRecord:
        async with live.serving():
            for name in NAMES:
                live.spawn("raw_bot", name, BOT_RECORD=str(records[name]))
            await live.wait_connected(NAMES)
            return await live.play(NAMES)

    game = run(main())
    expected = bids_by_round(game)
    assert sum(len(bids) for bids in expected.values()) > len(expected)  # rounds of several bids
    for name in NAMES:
        told = results_told(records[name])
        # Each seat learns of every round once, even those after it was out.
        assert [r.round for r in told] == sorted(expected)
        for result in told:
            bids = [(b.seat, b.count, b.face) for b in result.bids]
            assert bids == expected[result.round]
            assert result.bids[-1] == result.bid
            # The kit reads them back as the engine's placed bids.
            outcome = wire.outcome_from_proto(result)
            assert [(p.seat, p.bid.count, p.bid.face) for p in outcome.bids] == bids
