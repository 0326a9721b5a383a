"""Each decision's CPU time is kept with its wall time; a run says what its timeouts mean."""

from __future__ import annotations

from referee_harness import Arena, run

from arena.protocol.faults import FaultKind
from arena.records import Decision, FaultEvent
from arena.referee.match import GameRecord, GameSpec
from arena.tournament.report.timeouts import TimingReport
from engine import Opener, Ruleset

NAMES = ("rogue", "steady", "sure")
SEAT0 = Ruleset(opener=Opener.SEAT0)


def _game(players: tuple[str, ...], late_seats: list[int], decisions: int = 100) -> GameRecord:
    record = GameRecord(GameSpec("g", players, "g", Ruleset()), decisions=decisions)
    for seat in late_seats:
        record.events.append(FaultEvent(seat, FaultKind.TIMEOUT, "late", "", 60.0, 1.0, 50.0))
    return record


def test_timeouts_spread_over_every_bot_are_called_machine_load() -> None:
    report = TimingReport()
    bots = tuple(f"b{i}" for i in range(6))
    for first in range(0, 6, 2):
        report.add(_game(bots, [first, first + 1]))
    [note] = report.notes()
    assert "6 timeouts (20.0 per 1,000 decisions) spread over 6 of 6 bots" in note
    assert "machine load" in note
    assert "waited for one 83%" in note


def test_timeouts_piled_on_one_bot_are_called_a_slow_bot() -> None:
    report = TimingReport()
    bots = tuple(f"b{i}" for i in range(6))
    for _ in range(5):
        report.add(_game(bots, [2]))
    [note] = report.notes()
    assert "5 of them b2's: a slow bot" in note
    assert "machine load" not in note


def test_a_quiet_run_says_nothing() -> None:
    report = TimingReport()
    report.add(_game(("a", "b"), []))
    assert report.notes() == []


def test_each_decision_records_the_cpu_time_of_the_process_that_made_it(live: Arena) -> None:
    """A bot spinning past its limit ran (or queued for a CPU) all along; a sleeping one did not."""
    move_time = 0.3

    async def main() -> None:
        async with live.serving(move_time=move_time):
            live.spawn("kit_bot", "rogue", BOT_MODE="busy", BOT_AT=1, BOT_SLEEP=0.6)
            live.spawn("kit_bot", "steady", sessions=2)
            live.spawn("kit_bot", "sure", BOT_MODE="timeout", BOT_AT=1, BOT_SLEEP=0.6)
            await live.wait_connected(NAMES)
            await live.wait_connected(["steady"], sessions=2)
            # Each of a kit bot's sessions is a process of its own: each is sampled as itself.
            pids = {s.cpu_pid for s in live.lobby.all_sessions() if s.name == "steady"}
            assert len(pids) == 2 and live.lobby.process_ids["steady"] in pids
            record = await live.play(NAMES, SEAT0)
            late = [(f.bot, f.fault.kind) for f in record.faults]
            assert late == [("rogue", FaultKind.TIMEOUT), ("sure", FaultKind.TIMEOUT)]
            spun, slept = [e for e in record.events if isinstance(e, FaultEvent)]
            assert spun.cpu_ms is not None and spun.cpu_wait_ms is not None, spun
            assert spun.cpu_ms + spun.cpu_wait_ms >= 0.5 * move_time * 1000, spun
            # The sleeper used its time, but no CPU.
            assert slept.cpu_ms is not None and slept.wall_ms is not None, slept
            assert slept.cpu_ms < 0.5 * slept.wall_ms, slept
            assert all(e.cpu_ms is not None for e in record.events if isinstance(e, Decision))

    run(main())
