"""The engine against every rule case: the shared ones and our own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.conformance import run_case

CASES = Path(__file__).resolve().parent / "cases"
SHARED = CASES / "shared.json"
EXTRA = CASES / "extra.json"


def cases_of(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    cases: list[dict[str, Any]] = data["cases"] if isinstance(data, dict) else data
    return cases


ALL_CASES = [(path.name, case) for path in (SHARED, EXTRA) for case in cases_of(path)]
CASE_IDS = [f"{name}:{case['id']}" for name, case in ALL_CASES]


@pytest.mark.parametrize("case", [case for _, case in ALL_CASES], ids=CASE_IDS)
def test_case_passes(case: dict[str, Any]) -> None:
    assert run_case(case) is None


def test_case_files_have_unique_ids() -> None:
    ids = [case["id"] for _, case in ALL_CASES]
    assert len(ids) == len(set(ids))
    assert len(cases_of(SHARED)) == 25
