"""engine.ruleset: defaults, presets and the plain-data form."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from engine_support import property_settings, rulesets
from hypothesis import given

from engine import (
    PRESETS,
    CalzaRule,
    FaultPenalty,
    Opener,
    PerudoError,
    Ruleset,
    RulesetError,
    preset,
)


def test_defaults_are_those_of_rules_md() -> None:
    assert Ruleset().to_mapping() == {
        "dice_per_player": 5,
        "opener": "rolloff",
        "lower_face_with_higher_count": True,
        "calza": "turn",
        "palifico": True,
        "palifico_once": True,
        "palifico_one_die_may_change_face": False,
        "fault_penalty": "eliminate",
    }


def test_presets() -> None:
    assert set(PRESETS) == {"rulebook", "calza-any", "no-calza"}
    assert preset("rulebook") == Ruleset()
    assert preset("calza-any") == Ruleset(calza=CalzaRule.ANY)
    assert preset("no-calza") == Ruleset(calza=CalzaRule.OFF)
    assert preset("calza-any").changes() == {"calza": "any"}
    assert preset("no-calza").changes() == {"calza": "off"}


def test_unknown_preset_is_a_ruleset_error() -> None:
    with pytest.raises(RulesetError, match="unknown preset"):
        preset("house-rules")


def test_from_mapping_reads_plain_values() -> None:
    ruleset = Ruleset.from_mapping(
        {"dice_per_player": 3, "opener": "seat0", "calza": "any", "fault_penalty": "lose_die"}
    )
    assert ruleset.dice_per_player == 3
    assert ruleset.opener is Opener.SEAT0
    assert ruleset.calza is CalzaRule.ANY
    assert ruleset.fault_penalty is FaultPenalty.LOSE_DIE
    assert ruleset.palifico is True  # untouched fields keep their defaults


def test_from_mapping_builds_over_a_base() -> None:
    base = Ruleset(calza=CalzaRule.OFF)
    assert Ruleset.from_mapping({"palifico": False}, base) == Ruleset(
        calza=CalzaRule.OFF, palifico=False
    )


def test_from_mapping_rejects_unknown_fields() -> None:
    with pytest.raises(RulesetError, match="unknown ruleset field 'wild_ones'"):
        Ruleset.from_mapping({"wild_ones": True})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dice_per_player", 0),
        ("dice_per_player", -1),
        ("dice_per_player", "5"),
        ("dice_per_player", 2.5),
        ("dice_per_player", True),
        ("dice_per_player", None),
        ("opener", "random"),
        ("opener", 0),
        ("calza", "sometimes"),
        ("calza", True),
        ("calza", ["any"]),
        ("fault_penalty", "warn"),
        ("lower_face_with_higher_count", "yes"),
        ("palifico", 1),
        ("palifico_once", None),
        ("palifico_one_die_may_change_face", "false"),
    ],
)
def test_from_mapping_rejects_bad_values(field: str, value: Any) -> None:
    with pytest.raises(RulesetError):
        Ruleset.from_mapping({field: value})


def test_ruleset_errors_are_value_errors_and_perudo_errors() -> None:
    with pytest.raises(ValueError):
        Ruleset(dice_per_player=0)
    with pytest.raises(PerudoError):
        Ruleset(dice_per_player=0)


def test_a_ruleset_is_a_frozen_hashable_value() -> None:
    ruleset = Ruleset()
    with pytest.raises(dataclasses.FrozenInstanceError):
        ruleset.dice_per_player = 3  # type: ignore[misc]
    assert len({Ruleset(), Ruleset(), Ruleset(palifico=False)}) == 2


@given(rulesets)
@property_settings(100)
def test_mapping_round_trip(ruleset: Ruleset) -> None:
    plain = ruleset.to_mapping()
    assert Ruleset.from_mapping(json.loads(json.dumps(plain))) == ruleset
    assert Ruleset.from_mapping(ruleset.changes()) == ruleset
    assert set(ruleset.changes()) == {
        name for name, value in plain.items() if Ruleset().to_mapping()[name] != value
    }
