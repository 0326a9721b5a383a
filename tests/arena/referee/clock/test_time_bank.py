"""The time control: a bank pays for overruns, a timeout only once it is spent, and
`time_left_ms` tells each bot what it has. Real referee, real bot processes that sleep
a controlled time; the margins are wide, so that a loaded machine passes too."""

from __future__ import annotations

from pathlib import Path

from referee_harness import Arena, read_record, replay, run

from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.clock.deadline import TimeControl

MOVE = 0.2
BANK = 2.0
NAMES = ("sleepy", "quick")


def _requests(path: Path) -> list[pb.ActionRequest]:
    return [m.request for m in read_record(path) if m.WhichOneof("kind") == "request"]


def test_the_bank_pays_an_overrun_and_a_timeout_comes_only_once_it_is_spent(
    live: Arena, tmp_path: Path
) -> None:
    """Sleeping 1.5 s on a 0.2 s move time is paid from a 2 s bank; sleeping 2.5 s later,
    with at most 1.7 s of it left, is a timeout. The overrun is far above 0.3 s because the
    referee's own measured lateness is never charged, and on a loaded machine that is real."""
    record_file = tmp_path / "sleepy.record"

    async def main() -> None:
        async with live.serving(move_time=MOVE):
            live.spawn("raw_bot", NAMES[0], BOT_SLEEPS="1.5,0,2.5", BOT_RECORD=str(record_file))
            live.spawn("raw_bot", NAMES[1])
            await live.wait_connected(NAMES)
            record = await live.play(NAMES, clock=TimeControl(MOVE, BANK))
        requests = _requests(record_file)
        assert len(requests) >= 3
        first, second, third = requests[:3]
        assert first.time_left_ms == round((MOVE + BANK) * 1000)
        assert first.bank_left_ms == round(BANK * 1000)
        assert first.time_control == pb.TimeControl(
            move_time_ms=round(MOVE * 1000), bank_ms=round(BANK * 1000)
        )
        # The first overrun was paid: at least 0.3 s of its 1.3 s over the move time (the
        # referee's own lateness, which it measures, is never charged).
        assert second.bank_left_ms <= (BANK - 0.3) * 1000
        assert second.bank_left_ms > 0
        assert second.time_left_ms == second.bank_left_ms + round(MOVE * 1000)
        assert third.time_left_ms <= second.time_left_ms  # the bank is never paid back
        faults = [f for f in record.faults if f.bot == NAMES[0]]
        assert [f.fault.kind for f in faults] == [FaultKind.TIMEOUT]
        assert faults[0].fault.request_id == third.request_id
        assert [f for f in record.faults if f.bot == NAMES[1]] == []
        replay(record)

    run(main())


def test_without_a_bank_the_same_overrun_is_a_timeout(live: Arena, tmp_path: Path) -> None:
    async def main() -> None:
        async with live.serving(move_time=MOVE):
            live.spawn("raw_bot", NAMES[0], BOT_SLEEPS="1.5")
            live.spawn("raw_bot", NAMES[1])
            await live.wait_connected(NAMES)
            record = await live.play(NAMES, clock=TimeControl(MOVE))
        faults = [f for f in record.faults if f.bot == NAMES[0]]
        assert [f.fault.kind for f in faults] == [FaultKind.TIMEOUT]

    run(main())


def test_with_timeouts_off_a_slow_bot_plays_without_fault(live: Arena, tmp_path: Path) -> None:
    """Debug mode (--no-timeout): three decisions of three times the move time each."""
    record_file = tmp_path / "sleepy.record"

    async def main() -> None:
        async with live.serving(move_time=MOVE):
            live.spawn("raw_bot", NAMES[0], BOT_SLEEPS="0.6,0.6,0.6", BOT_RECORD=str(record_file))
            live.spawn("raw_bot", NAMES[1])
            await live.wait_connected(NAMES)
            record = await live.play(NAMES, clock=TimeControl(MOVE, enforced=False))
        assert record.faults == []
        assert len(_requests(record_file)) >= 3
        # The bot was told the move time as usual.
        assert all(r.time_left_ms == round(MOVE * 1000) for r in _requests(record_file))

    run(main())
