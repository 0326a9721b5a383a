"""A decision's deadline, rule by rule: the limit the time control gives, the bank it is paid
from, when the clock starts and stops, and the referee's own lateness never charged to a bot.

Pure arithmetic, so every boundary is checked exactly; `test_time_bank.py`,
`test_session.py` and `test_loop_lag.py` check the same rules through a real referee."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.referee.clock.deadline import (
    DEFAULT_TIME_MARGIN,
    LEAGUE_LAG_ALLOWANCE,
    GameClock,
    TimeControl,
    TimeControlError,
    bot_time,
    clock_start,
    due,
    is_late,
    late_by,
    network_credit,
    referee_late,
    reply_clock_start,
)

seconds = st.floats(min_value=0.0, max_value=600.0, allow_nan=False)


def test_the_limit_is_the_move_time_and_the_bank_left_and_the_margin_untold() -> None:
    clock = GameClock(TimeControl(0.5, bank=2.0, margin=DEFAULT_TIME_MARGIN), seats=3)
    assert clock.told(1) == 2.5  # what the request says the bot has
    assert clock.limit(1) == 2.5 + DEFAULT_TIME_MARGIN  # what it may take before a timeout
    assert GameClock(TimeControl(0.5), seats=1).limit(0) == 0.5  # no bank, no margin


def test_the_increment_is_earned_by_each_decision_in_time() -> None:
    clock = GameClock(TimeControl(1.0, bank=0.5, increment=0.1, margin=0.025), seats=2)
    clock.charge(0, 0.3, timed_out=False)
    assert clock.bank_left(0) == pytest.approx(0.6)
    clock.charge(0, 1.425, timed_out=False)  # 0.4 s over the move time and the margin
    assert clock.bank_left(0) == pytest.approx(0.3)
    assert clock.limit(0) == pytest.approx(1.0 + 0.3 + 0.025)
    assert clock.told(0) == pytest.approx(1.3)
    clock.charge(0, 1.3, timed_out=True)
    assert clock.bank_left(0) == 0.0
    assert clock.bank_left(1) == 0.5  # each seat's bank is its own


def test_the_bank_pays_only_what_passes_the_move_time_and_the_margin() -> None:
    clock = GameClock(TimeControl(1.0, bank=1.0, margin=0.25), seats=1)
    clock.charge(0, 1.25, timed_out=False)  # exactly the move time and the margin: free
    assert clock.bank_left(0) == 1.0
    clock.charge(0, 1.75, timed_out=False)
    assert clock.bank_left(0) == 0.5
    clock.charge(0, 9.0, timed_out=False)  # more than is left: the bank empties, no lower
    assert clock.bank_left(0) == 0.0
    assert clock.limit(0) == 1.25


def test_a_timeout_spends_the_whole_bank_and_earns_no_increment() -> None:
    clock = GameClock(TimeControl(1.0, bank=3.0, increment=0.5), seats=1)
    clock.charge(0, 0.1, timed_out=True)
    assert clock.bank_left(0) == 0.0
    assert clock.told(0) == 1.0


def test_timeouts_off_gives_no_limit_and_bad_time_controls_are_refused() -> None:
    assert GameClock(TimeControl(0.2, enforced=False), seats=1).limit(0) == math.inf
    for bad in ({"move_time": 0.0}, {"bank": -1.0}, {"increment": math.nan}):
        with pytest.raises(TimeControlError):
            TimeControl(**bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "bad",
    [
        {"move_time": -1.0},
        {"move_time": math.inf},
        {"move_time": math.nan},
        {"bank": math.inf},
        {"increment": -0.001},
        {"increment": math.inf},
    ],
)
def test_every_time_that_cannot_be_played_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(TimeControlError):
        TimeControl(**bad)  # type: ignore[arg-type]


def test_the_smallest_time_controls_that_can_be_played_are_taken() -> None:
    control = TimeControl(move_time=1e-9, bank=0.0, increment=0.0)
    assert GameClock(control, seats=1).limit(0) == 1e-9


def test_with_timeouts_off_nothing_is_late_yet_bots_are_told_their_times() -> None:
    clock = GameClock(TimeControl(0.2, bank=1.0, enforced=False, margin=0.025), seats=1)
    limit = clock.limit(0)
    assert clock.told(0) == 1.2  # told as in a tournament, so bots play as they would
    assert not is_late(3600.0, limit)
    assert due(100.0, limit, 0.0) == math.inf  # the session arms no timer for it
    assert late_by(3600.0, 0.0, limit) == 0.0
    assert not referee_late(3600.0, limit, timed_out=False)
    described = TimeControl(0.2, enforced=False).describe()
    assert described == "0.2 s per decision (TIMEOUTS OFF: no deadline is enforced)"


def test_the_time_control_in_words() -> None:
    assert TimeControl(0.5).describe() == "0.5 s per decision"
    words = TimeControl(0.5, bank=5.0, increment=0.1).describe()
    assert words == "0.5 s per decision, a bank of 5 s a game, +0.1 s to the bank per decision"


def test_a_reply_exactly_at_the_limit_is_in_time_and_one_past_it_is_late() -> None:
    limit = 0.5
    assert not is_late(limit, limit)
    assert is_late(math.nextafter(limit, math.inf), limit)
    assert late_by(limit, 0.0, limit) == 0.0
    assert late_by(0.75, 0.0, limit) == 0.25


def test_the_referees_hold_ups_are_taken_off_the_bots_time_never_charged() -> None:
    # Read 1.25 s after it was written, 0.5 s of which the referee's loop was held up.
    charged = bot_time(1.25, 0.5)
    assert charged == 0.75
    assert not is_late(charged, 1.0)
    assert is_late(bot_time(1.25, 0.2), 1.0)
    assert late_by(1.25, 0.5, 1.0) == 0.0  # a late reply is told by the bot's lateness alone
    assert late_by(1.75, 0.5, 1.0) == 0.25


def test_the_deadline_moves_by_every_second_the_referee_was_held_up() -> None:
    assert due(10.0, 0.5, 0.0) == 10.5
    assert due(10.0, 0.5, 2.0) == 12.5


def test_a_decision_the_referee_was_late_for_is_the_referees() -> None:
    # Over the limit by the referee's wall clock, in time by the bot's: the referee's.
    assert referee_late(1.1, 1.0, timed_out=False)
    assert not referee_late(1.1, 1.0, timed_out=True)  # a timeout is the bot's, and told so
    assert not referee_late(1.0, 1.0, timed_out=False)  # exactly at the limit: nobody late


def test_the_clock_starts_once_the_request_is_written() -> None:
    assert clock_start(began=5.0, written=5.25, writing=False) == 5.25
    # Still being written, or never written: the deadline covers the write.
    assert clock_start(began=5.0, written=0.0, writing=True) == 5.0
    assert clock_start(began=5.0, written=0.0, writing=False) == 5.0
    assert clock_start(began=5.0, written=5.25, writing=True) == 5.0


def test_a_reply_read_before_its_write_was_done_costs_the_bot_nothing() -> None:
    assert reply_clock_start(written=5.25, read=6.0) == 5.25
    assert reply_clock_start(written=5.25, read=5.25) == 5.25  # read the moment it was written
    # Read before the referee saw its write complete: the bot was quicker than the referee.
    assert reply_clock_start(written=6.5, read=6.0) == 6.0
    assert reply_clock_start(written=0.0, read=6.0) == 6.0  # never written, yet answered
    assert bot_time(6.0 - reply_clock_start(6.5, 6.0), 0.0) == 0.0


@given(elapsed=seconds, held=seconds, limit=seconds)
def test_a_reply_is_late_exactly_when_it_came_some_time_after_its_limit(
    elapsed: float, held: float, limit: float
) -> None:
    assert is_late(bot_time(elapsed, held), limit) == (late_by(elapsed, held, limit) > 0.0)


@given(start=seconds, limit=seconds, held=seconds, bot=seconds)
def test_a_bot_whose_own_time_is_within_its_limit_is_never_past_its_deadline(
    start: float, limit: float, held: float, bot: float
) -> None:
    # However long the referee was held up, a reply the bot sent within its limit is
    # read no later than the deadline, which the hold-ups moved.
    if bot <= limit:
        assert start + bot + held <= due(start, limit, held) + 1e-9


def test_a_link_is_credited_its_measured_round_trip_never_more_than_the_allowance() -> None:
    assert network_credit(0.2, 0.25) == 0.2  # a link under the allowance: all of it
    assert network_credit(0.4, 0.25) == 0.25  # farther (or seeming so): the allowance, no more
    assert network_credit(None, 0.25) == 0.0  # no Pong ever timed: nothing
    assert network_credit(0.2, 0.0) == 0.0  # no allowance (arena run): nothing
    assert 0.0 < LEAGUE_LAG_ALLOWANCE < TimeControl().move_time


@given(round_trip=st.none() | seconds, allowance=seconds)
def test_no_credit_is_ever_more_than_the_allowance_or_the_round_trip(
    round_trip: float | None, allowance: float
) -> None:
    credit = network_credit(round_trip, allowance)
    assert 0.0 <= credit <= allowance
    assert credit <= (round_trip or 0.0)


def test_the_links_credit_is_taken_off_the_bots_time_as_the_referees_lateness_is() -> None:
    # 0.2 s of link and 0.05 s of thinking at a 0.15 s move time: in time, its own 0.05 s.
    charged = bot_time(0.25, 0.0, network_credit(0.2, 0.25))
    assert math.isclose(charged, 0.05)
    assert not is_late(charged, 0.15)
    assert is_late(bot_time(0.25, 0.0), 0.15)  # uncredited, the link alone times it out
    assert math.isclose(late_by(0.5, 0.0, 0.15, credit=0.2), 0.15)
    assert bot_time(0.1, 0.0, 0.2) == 0.0  # a link quicker this time: never below nothing
    assert not referee_late(0.3, 0.15, timed_out=False, credit=0.2)  # the link's, not late


def test_a_decision_that_used_cpu_is_never_recorded_as_taking_none() -> None:
    """A credit or a referee hold-up larger than the decision left 0.0 ms on record while the
    bot's process had used 6 ms of CPU on it."""
    assert bot_time(0.004, 0.0, credit=0.107) == 0.0  # before: no CPU said, nothing to floor
    assert bot_time(0.004, 0.0, credit=0.107, cpu=0.0006) == 0.0006
    assert bot_time(0.004, 0.003, cpu=0.002) == 0.002  # the hold-up was not all the referee's
    assert bot_time(0.004, 0.0, cpu=0.009) == 0.004  # threads: never more than its wall time
    assert bot_time(0.010, 0.001, cpu=0.002) == pytest.approx(0.009)  # its own, when larger
