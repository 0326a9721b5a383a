"""The engine against every rule case: the shared ones and our own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.conformance import run_case
from engine import PalificoFaceChange, Ruleset, Side

CASES = Path(__file__).resolve().parent / "cases"
SHARED = CASES / "shared.json"
EXTRA = CASES / "extra.json"
VARIANTS = CASES / "variants.json"


def cases_of(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    cases: list[dict[str, Any]] = data["cases"] if isinstance(data, dict) else data
    return cases


ALL_CASES = [(path.name, case) for path in (SHARED, EXTRA, VARIANTS) for case in cases_of(path)]
CASE_IDS = [f"{name}:{case['id']}" for name, case in ALL_CASES]


@pytest.mark.parametrize("case", [case for _, case in ALL_CASES], ids=CASE_IDS)
def test_case_passes(case: dict[str, Any]) -> None:
    assert run_case(case) is None


def test_case_files_have_unique_ids() -> None:
    ids = [case["id"] for _, case in ALL_CASES]
    assert len(ids) == len(set(ids))
    assert len(cases_of(SHARED)) == 25


VARIANT_FIELDS = {
    "palifico_min_players",
    "palifico_face_change",
    "palifico_one_die_may_change_face",
    "open_on_pacos",
    "opener_after_elimination",
    "calza_max_dice",
}


def _without_variants(case: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in case["rules"].items() if k not in VARIANT_FIELDS}


AGREES_WITH_THE_RULEBOOK = {
    "palifico-min-players-3-three-players-palifico",
    "calza-max-dice-below-the-start-one-die-gains",
}
"""Cases that show a variant playing as the rulebook does where it should."""

VARIANT_CASES = [
    case
    for case in cases_of(VARIANTS)
    if Ruleset.from_mapping(case["rules"]) != Ruleset.from_mapping(_without_variants(case))
]


@pytest.mark.parametrize("case", VARIANT_CASES, ids=[case["id"] for case in VARIANT_CASES])
def test_a_variant_case_tells_its_value_from_the_rulebook_s(case: dict[str, Any]) -> None:
    """With its variant fields back at their defaults a case fails: it did not pass by accident."""
    rulebook = {**case, "rules": _without_variants(case)}
    if case["id"] in AGREES_WITH_THE_RULEBOOK:
        assert run_case(rulebook) is None
    else:
        assert run_case(rulebook) is not None


def test_every_value_of_every_variant_field_has_a_case() -> None:
    told = {
        (field, json.dumps(value))
        for case in cases_of(VARIANTS)
        for field, value in Ruleset.from_mapping(case["rules"]).to_mapping().items()
        if field in case["rules"]
        or (field == "palifico_face_change" and "palifico_one_die_may_change_face" in case["rules"])
    }
    wanted = {
        ("palifico_min_players", "2"),
        ("palifico_min_players", "3"),
        *(("palifico_face_change", json.dumps(v.value)) for v in PalificoFaceChange),
        ("open_on_pacos", "false"),
        ("open_on_pacos", "true"),
        *(("opener_after_elimination", json.dumps(v.value)) for v in Side),
        ("calza_max_dice", "null"),
        ("calza_max_dice", "2"),
        ("calza_max_dice", "5"),
    }
    assert wanted <= told, wanted - told
