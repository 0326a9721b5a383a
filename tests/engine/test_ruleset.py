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
    PalificoFaceChange,
    PerudoError,
    Ruleset,
    RulesetError,
    Side,
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
        "palifico_face_change": "none",
        "palifico_min_players": 2,
        "open_on_pacos": False,
        "opener_after_elimination": "left",
        "calza_max_dice": None,
        "fault_penalty": "eliminate",
    }


def test_presets() -> None:
    assert set(PRESETS) == {
        "rulebook",
        "calza-any",
        "no-calza",
        "online",
        "pub",
        "no-heads-up-palifico",
    }
    assert preset("no-heads-up-palifico").changes() == {
        "calza": "any",
        "palifico_min_players": 3,
        "calza_max_dice": 5,
    }
    assert preset("online").changes() == {"calza": "any"}
    assert preset("pub").changes() == {"calza": "off", "palifico": False, "open_on_pacos": True}
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
        ("palifico_one_die_may_change_face", None),
        ("palifico_face_change", "some"),
        ("palifico_face_change", True),
        ("palifico_min_players", 1),
        ("palifico_min_players", "3"),
        ("palifico_min_players", None),
        ("open_on_pacos", "true"),
        ("opener_after_elimination", "up"),
        ("calza_max_dice", 0),
        ("calza_max_dice", "5"),
        ("calza_max_dice", False),
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


@pytest.mark.parametrize(
    ("old", "new"), [(True, PalificoFaceChange.ALL), (False, PalificoFaceChange.NONE)]
)
def test_the_old_face_change_bool_is_still_read(old: bool, new: PalificoFaceChange) -> None:
    base = Ruleset(palifico_face_change=PalificoFaceChange.OTHERS)
    ruleset = Ruleset.from_mapping({"palifico_one_die_may_change_face": old}, base)
    assert ruleset.palifico_face_change is new
    assert ruleset.palifico_one_die_may_change_face is old
    both = {"palifico_one_die_may_change_face": old, "palifico_face_change": new.value}
    assert Ruleset.from_mapping(both) == ruleset
    # Only the new field is written back.
    assert "palifico_one_die_may_change_face" not in ruleset.to_mapping()


@pytest.mark.parametrize(
    ("old", "new"), [(True, "none"), (True, "others"), (False, "all"), (False, "others")]
)
def test_old_and_new_face_change_fields_that_disagree_are_refused(old: bool, new: str) -> None:
    with pytest.raises(RulesetError, match="give palifico_face_change alone"):
        Ruleset.from_mapping({"palifico_one_die_may_change_face": old, "palifico_face_change": new})


def test_the_calza_cap_follows_the_start_unless_set() -> None:
    assert Ruleset(dice_per_player=3).calza_cap == 3
    assert Ruleset(dice_per_player=3, calza_max_dice=5).calza_cap == 5
    assert Ruleset(dice_per_player=3, calza_max_dice=5).most_dice == 5
    assert Ruleset(dice_per_player=5, calza_max_dice=2).most_dice == 5
    assert Ruleset.from_mapping({"calza_max_dice": None}, Ruleset(calza_max_dice=4)) == Ruleset()


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("calza_max_dice", "5", 5),
        ("calza_max_dice", "null", None),
        ("calza_max_dice", "none", None),
        ("palifico_face_change", "none", PalificoFaceChange.NONE),
        ("palifico_face_change", "others", PalificoFaceChange.OTHERS),
        ("open_on_pacos", "TRUE", True),
        ("opener_after_elimination", "right", Side.RIGHT),
        ("palifico_min_players", "3", 3),
    ],
)
def test_from_text_reads_command_line_values(name: str, text: str, value: object) -> None:
    assert getattr(Ruleset.from_text(name, text), name) == value


def test_from_text_refuses_null_for_a_field_that_cannot_be_unset() -> None:
    with pytest.raises(RulesetError, match="palifico_min_players"):
        Ruleset.from_text("palifico_min_players", "null")
