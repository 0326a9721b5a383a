"""Who sits out the ladder's tables, for how long, and when they are back."""

from __future__ import annotations

from arena.league.ladder.sideline import SIT_OUT_MAX_S, SIT_OUT_S, Sideline, why_out


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_crash_sits_out_a_while_and_each_strike_in_a_row_twice_as_long() -> None:
    clock = Clock()
    sideline = Sideline(clock)
    assert sideline.out("crashy", 1, "crash in ladder-000003") == SIT_OUT_S
    assert sideline.sitting_out("crashy", 1) and not sideline.sitting_out("steady", 1)
    [out] = sideline.now()
    assert (out.name, out.seconds, out.why) == ("crashy", SIT_OUT_S, "crash in ladder-000003")
    clock.now += SIT_OUT_S
    assert not sideline.sitting_out("crashy", 1) and sideline.now() == []
    assert sideline.out("crashy", 1, "crash") == 2 * SIT_OUT_S
    seconds = [sideline.out("crashy", 1, "crash") for _ in range(10)]
    assert seconds[-1] == SIT_OUT_MAX_S and seconds == sorted(seconds)


def test_a_clean_round_forgets_the_strikes() -> None:
    sideline = Sideline(Clock())
    sideline.out("crashy", 1, "crash")
    sideline.out("crashy", 1, "crash")
    sideline.cleared("crashy")
    assert sideline.out("crashy", 1, "crash") == SIT_OUT_S


def test_a_new_version_is_not_held_to_the_last_ones_strikes() -> None:
    sideline = Sideline(Clock())
    sideline.out("crashy", 1, "crash")
    sideline.out("crashy", 1, "crash")
    assert sideline.sitting_out("crashy", 1)
    assert not sideline.sitting_out("crashy", 2)  # its author sent a fix: seated at once
    assert sideline.now() == []
    assert sideline.out("crashy", 2, "crash") == SIT_OUT_S


def test_those_out_are_listed_soonest_back_first() -> None:
    clock = Clock()
    sideline = Sideline(clock)
    sideline.out("b", 1, "stall")
    sideline.out("b", 1, "stall")
    sideline.out("a", None, "crash")
    assert [s.name for s in sideline.now()] == ["a", "b"]


def test_a_round_says_why_a_bot_sits_out_or_that_it_was_clean() -> None:
    faults = {"a": {"crash": 1, "timeout": 2}, "b": {"timeout": 3, "stall": 0}, "c": {}}
    skipped = {"d": "did not connect within 10 s"}
    assert why_out("a", faults, skipped, "ladder-000001") == "crash in ladder-000001"
    assert why_out("b", faults, skipped, "ladder-000001") is None  # slow is not broken
    assert why_out("c", faults, skipped, "ladder-000001") is None
    said = why_out("d", faults, skipped, "ladder-000001")
    assert said == "could not play ladder-000001: did not connect within 10 s"
