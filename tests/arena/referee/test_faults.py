"""Every kind of fault, committed by a real misbehaving bot process.

Each game seats the misbehaving bot at seat 0 (which opens the first round)
with two well-behaved kit bots. The bots play deterministically and the dice
are seeded, so each game plays out the same way on every run.
"""

from __future__ import annotations

import pytest
from referee_harness import Arena, replay, run, until

from arena.protocol.faults import FaultKind
from arena.records import Deal, Decision, FaultEvent, ReplayEvent
from arena.referee.match import GameRecord
from engine import FaultPenalty, Opener, Ruleset

ROGUE = "rogue"
NAMES = (ROGUE, "steady", "sure")
SEAT0 = Ruleset(opener=Opener.SEAT0)
MOVE_TIME = 0.5


def events_after_fault(record: GameRecord) -> list[ReplayEvent]:
    at = next(i for i, e in enumerate(record.events) if isinstance(e, FaultEvent))
    return record.events[at + 1 :]


# (bot script, its environment, the fault, what the fault records as sent, words in its detail)
CASES = {
    "timeout": (
        "kit_bot",
        {"BOT_MODE": "timeout", "BOT_AT": 3, "BOT_SLEEP": 1.5},
        FaultKind.TIMEOUT,
        "",
        "no reply within 500 ms",
    ),
    "illegal": (
        "kit_bot",
        {"BOT_MODE": "illegal", "BOT_AT": 1},
        FaultKind.ILLEGAL_ACTION,
        "kind: ACTION_KIND_BID count: 1 face: 1",
        "may not open on pacos",
    ),
    "unspecified-kind": (
        "raw_bot",
        {"BOT_MODE": "unspecified", "BOT_AT": 3},
        FaultKind.MALFORMED_MESSAGE,
        "count: 2 face: 3",
        "no valid kind",
    ),
    "dudo-with-count": (
        "raw_bot",
        {"BOT_MODE": "dudo_count", "BOT_AT": 3},
        FaultKind.MALFORMED_MESSAGE,
        "kind: ACTION_KIND_DUDO count: 2 face: 3",
        "only a bid has a count and a face",
    ),
    "half-close": (
        "raw_bot",
        {"BOT_MODE": "halfclose", "BOT_AT": 3},
        FaultKind.DISCONNECT,
        "",
        "closed the stream",
    ),
    "cancel": ("raw_bot", {"BOT_MODE": "cancel", "BOT_AT": 3}, FaultKind.DISCONNECT, "", ""),
    "crash": (
        "kit_bot",
        {"BOT_MODE": "crash", "BOT_AT": 3},
        FaultKind.CRASH,
        "",
        "process died",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_faulting_bot_is_eliminated_and_the_others_finish(live: Arena, case: str) -> None:
    script, env, kind, sent, words = CASES[case]

    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            rogue = live.spawn(script, ROGUE, **env)
            await live.launch("kit_bot", NAMES[1:])
            await live.wait_connected([ROGUE])
            record = await live.play(NAMES, SEAT0, game_id=f"fault-{case}")

            assert len(record.faults) == 1, record.faults
            [fault] = record.faults
            assert (fault.game_id, fault.bot, fault.seat) == (f"fault-{case}", ROGUE, 0)
            assert fault.fault.kind is kind
            assert fault.fault.sent == sent
            assert words in fault.fault.detail
            assert fault.fault.request_id > 0
            assert fault.to_json()["kind"] == kind.value

            # Out on the spot, ranked below everyone; the others play on to the end.
            assert sorted(record.order) == [0, 1, 2]
            assert record.order[-1] == 0
            after = events_after_fault(record)
            assert {e.seat for e in after if isinstance(e, Decision)} == {1, 2}
            assert not any(isinstance(e, (Decision, FaultEvent)) and e.seat == 0 for e in after)
            assert replay(record).order == record.order

            if kind is FaultKind.CRASH:
                assert await live.wait_exit(rogue, 5) == 1
            elif script == "kit_bot":
                # The bot hears of its fault in GameOver, then leaves cleanly on Goodbye.
                told = f"fault in game fault-{case}: FAULT_KIND_{kind.name}"
                assert await until(lambda: told in live.log(ROGUE), 10), live.log(ROGUE)
                await live.referee.stop()
                assert await live.wait_exit(rogue) == 0

    run(main())


def test_lose_die_penalty_costs_one_die_and_the_game_goes_on(live: Arena) -> None:
    ruleset = Ruleset(opener=Opener.SEAT0, fault_penalty=FaultPenalty.LOSE_DIE)

    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            live.spawn("kit_bot", ROGUE, BOT_MODE="illegal", BOT_AT=1)
            await live.launch("kit_bot", NAMES[1:])
            await live.wait_connected([ROGUE])
            record = await live.play(NAMES, ruleset, game_id="lose-die")

            [fault] = record.faults
            assert fault.fault.kind is FaultKind.ILLEGAL_ACTION
            assert (fault.bot, fault.seat, fault.round) == (ROGUE, 0, 1)
            after = events_after_fault(record)
            # The round is abandoned; the offender opens the next, one die down.
            next_deal = next(e for e in after if isinstance(e, Deal))
            assert next_deal.round == 2
            assert next_deal.opener == 0
            assert [len(h) for h in next_deal.hands] == [4, 5, 5]
            assert any(isinstance(e, Decision) and e.seat == 0 for e in after)
            assert sorted(record.order) == [0, 1, 2]
            assert replay(record).order == record.order

    run(main())


def test_a_late_bot_keeps_playing_under_lose_die(live: Arena) -> None:
    """A reply that comes after the deadline is dropped; the next request is answered in time."""
    ruleset = Ruleset(opener=Opener.SEAT0, fault_penalty=FaultPenalty.LOSE_DIE)

    move_time = 2.0

    async def main() -> None:
        async with live.serving(move_time=move_time):
            # Late by a whole second, so that a busy referee's own hold-ups (never the bot's)
            # cannot cover it; the next request, sent on the deadline, waits that second,
            # well within its own time.
            live.spawn("kit_bot", ROGUE, BOT_MODE="timeout", BOT_AT=1, BOT_SLEEP=move_time + 1.0)
            await live.launch("kit_bot", NAMES[1:])
            await live.wait_connected([ROGUE])
            record = await live.play(NAMES, ruleset, game_id="late")

            [fault] = record.faults
            assert fault.fault.kind is FaultKind.TIMEOUT
            after = events_after_fault(record)
            deal, answer = after[:2]
            assert isinstance(deal, Deal) and deal.opener == 0 and len(deal.hands[0]) == 4
            # The next decision is the offender's own, and it counts: a legal opening bid.
            assert isinstance(answer, Decision)
            assert answer.seat == 0 and answer.action.startswith("bid")
            assert replay(record).order == record.order

    run(main())


def test_a_bot_answering_at_half_its_time_is_never_faulted(live: Arena) -> None:
    move_time = 0.4
    ruleset = Ruleset(dice_per_player=3)

    async def main() -> None:
        async with live.serving(move_time=move_time):
            live.spawn("kit_bot", "thinker", BOT_MODE="slow", BOT_SLEEP=move_time / 2)
            await live.launch("kit_bot", NAMES[1:])
            await live.wait_connected(["thinker"])
            names = ("thinker", *NAMES[1:])
            record = await live.play(names, ruleset, game_id="half-time")

            assert record.faults == []
            thinking = record.think_ms[0]
            assert thinking, "the slow bot was never asked"
            # The time the referee saw, from the end of the request's write to reading the
            # reply, is the bot's own and the referee's hold-ups meanwhile, recorded apart (not
            # charged). It may be less than the bot slept: a busy referee learns late that its
            # write ended, and that share is never the bot's either, so no lower bound holds.
            mine = [e for e in record.events if isinstance(e, Decision) and e.seat == 0]
            assert all(0 < e.ms <= move_time * 1000 for e in mine), mine  # within its time
            seen = [e.ms + (e.referee_ms or 0.0) for e in mine]
            assert max(thinking) <= max(seen) + 0.001  # seen is rounded to the microsecond
            assert sorted(record.order) == [0, 1, 2]
            assert replay(record).order == record.order

    run(main())
