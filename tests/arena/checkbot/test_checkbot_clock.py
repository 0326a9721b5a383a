"""check-bot with timeouts off plays a slow bot through, and warns of decisions near the limit."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.checkbot.check import Check, check_bot
from arena.checkbot.verdict import near_limit, slow_first

BOTS = Path(__file__).resolve().parents[1] / "checkbot_bots"


@pytest.mark.slow  # a whole check-bot run: about 5 s, more on a busy machine
def test_with_timeouts_off_a_bot_slower_than_the_move_time_passes_with_warnings() -> None:
    seen: list[Check] = []
    result = asyncio.run(
        check_bot(BOTS / "slow_start_bot.py", seen.append, 0.3, 10.0, timeouts=False)
    )
    assert result.passed, {c.name: c.detail for c in result.checks if not c.passed}
    opening = next(c for c in result.checks if c.name == "opening")
    assert "over the 300 ms limit: a timeout, were they on" in opening.warning


def test_a_decision_within_10_percent_of_the_limit_is_warned_of() -> None:
    assert near_limit(890.0, 1.0) == ""
    assert "900 ms, within 10% of the 1000 ms limit" in near_limit(900.0, 1.0)
    assert "1001 ms, over the 1000 ms limit" in near_limit(1001.0, 1.0)


@pytest.mark.slow  # a whole check-bot run, its first two decisions 0.8 s each
def test_a_first_decision_past_half_its_limit_is_warned_of_with_the_warm_up_advice() -> None:
    seen: list[Check] = []
    result = asyncio.run(check_bot(BOTS / "slow_start_bot.py", seen.append, 1.5, 10.0))
    assert result.passed, {c.name: c.detail for c in result.checks if not c.passed}
    first, second = [c for c in result.checks if c.detail.endswith(" ms)")][:2]  # probes
    assert "its first decision took" in first.warning and "warm it up" in first.warning
    assert "first decision" not in second.warning  # as slow, but not its first


def test_only_a_first_decision_past_half_the_limit_is_warned_of() -> None:
    assert slow_first(499.0, 1.0) == ""
    said = slow_first(522.0, 1.0)
    assert "its first decision took 522 ms, over half the 1000 ms limit" in said
    assert "JVM" in said and "warm it up" in said
