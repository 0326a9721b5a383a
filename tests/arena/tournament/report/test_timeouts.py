"""Each decision's CPU time is kept with its wall time; a run says what its timeouts mean."""

from __future__ import annotations

from referee_harness import Arena, run

from arena.protocol.faults import FaultKind
from arena.records import Decision, FaultEvent
from arena.referee.clock.deadline import TimeControl
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


def _far_game(
    players: tuple[str, ...], seat: int, rtt_ms: float, credit_ms: float | None
) -> GameRecord:
    record = GameRecord(GameSpec("g", players, "g", Ruleset()), decisions=10)
    record.events.append(
        FaultEvent(seat, FaultKind.TIMEOUT, "late", "", 210.0, 1.0, 0.0, rtt_ms, credit_ms)
    )
    return record


def test_timeouts_of_a_bot_whose_link_alone_took_the_move_time_are_its_networks() -> None:
    report = TimingReport(TimeControl(0.15))
    bots = ("faraway", "near", "nearer")
    for _ in range(6):
        report.add(_far_game(bots, 0, 200.0, None))
    [note] = report.notes()
    assert note.startswith("faraway: 6 timeouts, its link alone took 200 ms of 150: ")
    assert "its network, not its thinking" in note and "--lag-allowance" in note
    assert "slow bot" not in note


def test_a_link_longer_than_the_allowance_is_told_with_what_was_credited() -> None:
    report = TimingReport(TimeControl(0.15, lag_allowance=0.25))
    for _ in range(2):
        report.add(_far_game(("faraway", "near"), 0, 400.0, 250.0))
    [note] = report.notes()
    assert note.startswith("faraway: 2 timeouts, its link alone took 400 ms of 150, 250 ms of")
    assert "(--lag-allowance 0.25)" in note


def test_a_link_credited_nothing_under_an_allowance_is_told_why() -> None:
    """Under an allowance, a timeout credited nothing is a bot the arena started (or one whose
    link was not yet timed): the note says so, not that an allowance would credit it."""
    report = TimingReport(TimeControl(0.15, lag_allowance=0.25))
    for _ in range(2):
        report.add(_far_game(("faraway", "near"), 0, 200.0, None))
    [note] = report.notes()
    assert note.startswith("faraway: 2 timeouts, its link alone took 200 ms of 150: ")
    assert "a bot the arena started is never credited" in note
    assert "would credit" not in note


def test_a_slow_bot_on_a_quick_link_is_still_a_slow_bot() -> None:
    report = TimingReport(TimeControl(0.15))
    bots = tuple(f"b{i}" for i in range(6))
    for _ in range(5):
        report.add(_far_game(bots, 2, 0.3, None))
    [note] = report.notes()
    assert "5 of them b2's: a slow bot" in note
