"""arena.tournament.kinds: a kind of value parses a flag's text and checks a value by one
rule, in the same words, and travels in its wire form and back."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from arena.bots.isolation.sandbox import SandboxMode
from arena.protocol.wire import ruleset_to_proto
from arena.tournament.kinds import (
    Choice,
    Count,
    Folder,
    Level,
    OptionError,
    Rules,
    Seconds,
    Seed,
    Store,
)
from engine import CalzaRule, Ruleset


@pytest.mark.parametrize(
    ("kind", "text", "said"),
    [
        (Count(1, 10), "many", "'many' is not a whole number"),
        (Count(1, 10), "11", "must be 1..10, not 11"),
        (Count(2), "1", "must be at least 2, not 1"),
        (Seconds(), "soon", "'soon' is not a number of seconds"),
        (Seconds(), "0", "0 s is out of range: give more than 0 and at most 3600 seconds"),
        (Seconds(), "nan", "nan is out of range: give a finite number of seconds"),
        (Seconds(margin=True), "-0.5", "-0.5 s is out of range: give 0 or more"),
        (Seconds(margin=True), "3601", "3601 s is out of range"),
        (Level(), "0.4", "0.4 is out of range: give a level from 0.5 up to"),
        (Level(), "high", "'high' is not a level such as 0.95"),
        (Choice(SandboxMode), "maybe", "'maybe' is not one of auto, require, off"),
        (Seed(), "", "an empty seed; leave --seed out for a fresh secret one"),
        (Seed(), "zz", "--seed must be hexadecimal"),
    ],
)
def test_a_flags_text_that_is_no_value_of_its_kind_is_refused_in_words(
    kind: Count | Seconds | Level | Choice[SandboxMode] | Seed, text: str, said: str
) -> None:
    with pytest.raises(OptionError) as refused:
        kind.parse(text)
    assert str(refused.value).startswith(said), str(refused.value)


def test_the_text_and_the_value_are_checked_by_the_same_rule() -> None:
    """A request's field is a value, not text: its problem is said as the flag's would be."""
    assert Seconds().problem(0.0) == Seconds().problem(Seconds().convert("0"))
    assert Count(1, 10).problem(11) == "must be 1..10, not 11"
    assert Seconds().problem(math.inf) == "inf is out of range: give a finite number of seconds"
    assert Seconds().parse("0.5") == 0.5
    assert Seed().parse("00" * 16) == bytes(16)
    assert Choice(SandboxMode).parse("off") is SandboxMode.OFF


def test_a_folder_or_store_where_a_file_is_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OptionError, match="is a file, not a folder for results"):
        Folder().parse(str(tmp_path / "file" / "out"))
    (tmp_path / "notes.sqlite").write_text("not a database")
    with pytest.raises(OptionError, match="is not a league store"):
        Store().parse(str(tmp_path / "notes.sqlite"))
    assert Store().parse("postgresql://db/league") == "postgresql://db/league"


def test_a_choice_and_a_ruleset_travel_as_their_wire_forms_and_back() -> None:
    choice = Choice(SandboxMode)
    assert choice.from_wire(choice.to_wire(SandboxMode.REQUIRE)) is SandboxMode.REQUIRE
    ruleset = Ruleset(calza=CalzaRule.ANY, dice_per_player=3, calza_max_dice=4)
    assert Rules().from_wire(Rules().to_wire(ruleset)) == ruleset
    broken = ruleset_to_proto(ruleset)
    broken.calza = 77
    with pytest.raises(OptionError, match="no value numbered 77"):
        Rules().from_wire(broken)
