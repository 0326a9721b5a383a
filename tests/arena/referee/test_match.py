"""Whole games between real bot processes: the finishing order is the engine's."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from referee_harness import Arena, replay, run

import engine
from arena.records import Deal, Decision
from arena.referee.match import GameRecord
from engine import CalzaRule, Ruleset

NAMES = ("alpha", "bravo", "charlie")


def check_finished(record: GameRecord, names: Sequence[str] = NAMES) -> None:
    assert sorted(record.order) == list(range(len(names)))
    assert record.ranking == tuple(names[s] for s in record.order)
    assert replay(record).order == record.order


def test_a_game_between_kit_bots_ends_with_the_engines_order(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            await live.launch("kit_bot", NAMES)
            record = await live.play(NAMES)
            check_finished(record)
            assert record.faults == []
            assert record.decisions > 0
            assert [len(t) for t in record.think_ms] != [0, 0, 0]
            # The winner is the only seat with dice when the replay ends.
            final = replay(record)
            assert [s for s, d in enumerate(final.dice) if d] == [record.order[0]]

    run(main())


def test_calza_any_offers_and_several_games_at_once(live: Arena) -> None:
    """Three games at once over three sessions per bot, under calza "any"."""

    async def main() -> None:
        async with live.serving():
            for name in NAMES:
                live.spawn("kit_bot", name, sessions=3)
            await live.wait_connected(NAMES, sessions=3)
            assert live.lobby.connected() == dict.fromkeys(NAMES, 3)
            ruleset = Ruleset(calza=CalzaRule.ANY)
            records = await asyncio.gather(
                *(live.play(NAMES[i:] + NAMES[:i], ruleset, game_id=f"g{i}") for i in range(3))
            )
            for record in records:
                check_finished(record, record.spec.players)
                assert record.faults == []
                assert any(isinstance(e, Decision) and e.declined for e in record.events)

    run(main())


def test_duplicate_deals_give_the_same_first_round(live: Arena) -> None:
    """Rotations of a table share a deal key, so they share their dice."""

    async def main() -> None:
        async with live.serving():
            await live.launch("kit_bot", NAMES)
            rotated = NAMES[1:] + NAMES[:1]
            first = await live.play(NAMES, game_id="a", deal_key="table-1")
            second = await live.play(rotated, game_id="b", deal_key="table-1")
            deal_a = next(e for e in first.events if isinstance(e, Deal))
            deal_b = next(e for e in second.events if isinstance(e, Deal))
            assert deal_a == deal_b
            check_finished(first)
            check_finished(second, rotated)

    run(main())


def test_engine_order_is_winner_then_reverse_elimination() -> None:
    """The replay helper itself: an order from a hand-made game."""
    state = engine.new_game(Ruleset(dice_per_player=1), 3, 0)
    state = engine.deal(state, [(2,), (3,), (4,)])
    state = engine.fault(state, 1)
    state = engine.deal(state, [(2,), (), (4,)])
    state = engine.apply(state, 0, engine.Bid(2, 6))
    state = engine.apply(state, 2, engine.DUDO)
    assert state.order == (2, 0, 1)
