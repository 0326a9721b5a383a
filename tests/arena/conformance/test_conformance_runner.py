"""The rule-case runner: its command line, the format points it pins, and bad cases."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.conformance import main, run_case, run_files

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "engine" / "cases"
SHARED = CASES / "shared.json"
EXTRA = CASES / "extra.json"
VARIANTS = CASES / "variants.json"


def cases_of(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    cases: list[dict[str, Any]] = data["cases"] if isinstance(data, dict) else data
    return cases


ALL_CASES = [(path.name, case) for path in (SHARED, EXTRA, VARIANTS) for case in cases_of(path)]
CASE_IDS = [f"{name}:{case['id']}" for name, case in ALL_CASES]


def run_cli(*files: Path, module: str = "arena.conformance") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *map(str, files)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_cli_passes_the_shared_cases() -> None:
    result = run_cli(SHARED)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout + result.stderr
    assert lines[:-1] == [f"PASS {case['id']}" for case in cases_of(SHARED)]
    assert lines[-1] == "25 passed, 0 failed"


def test_the_first_name_of_the_command_runs_the_same_runner(tmp_path: Path) -> None:
    bad = {**copy.deepcopy(cases_of(SHARED)[0]), "id": "bad"}
    bad["steps"].append({"expect": {"to_act": 0}})
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps([*cases_of(SHARED), bad]))
    old, new = run_cli(mixed, module="engine.conformance"), run_cli(mixed)
    assert (old.returncode, old.stdout) == (new.returncode, new.stdout) == (1, new.stdout)
    assert new.stdout.splitlines()[-1] == "25 passed, 1 failed"


def test_cli_passes_the_extra_cases() -> None:
    result = run_cli(EXTRA)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"{len(cases_of(EXTRA))} passed, 0 failed"


def test_cli_passes_variant_cases_written_elsewhere(tmp_path: Path) -> None:
    """Cases for every value of every variant field, from a file outside the repository,
    each spelling its rules as another engine's file would (old face-change bool included)."""
    cases = copy.deepcopy(cases_of(VARIANTS))
    for case in cases:
        case["id"] = f"elsewhere-{case['id']}"
        face_change = case["rules"].pop("palifico_face_change", None)
        if (
            face_change in {"none", "all"}
            and "palifico_one_die_may_change_face" not in case["rules"]
        ):
            case["rules"]["palifico_one_die_may_change_face"] = face_change == "all"
        elif face_change is not None:
            case["rules"]["palifico_face_change"] = face_change
    outside = tmp_path / "their-cases.json"
    outside.write_text(json.dumps(cases, indent=1))
    result = run_cli(outside)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"{len(cases)} passed, 0 failed"


def test_cli_exits_1_when_a_case_fails(tmp_path: Path) -> None:
    good = cases_of(SHARED)[0]
    bad = {**copy.deepcopy(good), "id": "bad"}
    bad["steps"].append({"expect": {"to_act": 0}})  # to_act is 1 at the end
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps([good, bad]))
    result = run_cli(path)
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0] == f"PASS {good['id']}"
    assert lines[1].startswith("FAIL bad: ")
    assert lines[-1] == "1 passed, 1 failed"
    assert result.stderr == ""


def test_cli_without_files_is_a_usage_error() -> None:
    assert run_cli().returncode == 2


# --- malformed or wrong cases are FAILs --------------------------------------------------

BASE: dict[str, Any] = {
    "id": "base",
    "start": {"dice": [2, 2], "opener": 0},
    "steps": [
        {"roll": [[2, 3], [1, 4]]},
        {"do": "bid 2 3"},
        {"do": "dudo"},
        # 3s with pacos: 1 + 1 = 2, the bid stands, the caller (seat 1) loses.
        {"expect": {"count": 2, "dice": [2, 1], "to_act": 1, "palifico": True, "bid": None}},
    ],
}


def test_the_base_case_passes() -> None:
    assert run_case(BASE) is None


def test_count_is_null_before_any_dudo_or_calza_and_after_a_round_ended_by_a_fault() -> None:
    faulted = {
        "id": "fault-has-no-count",
        "start": {"dice": [2, 2, 2], "opener": 0},
        "steps": [
            {"expect": {"count": None}},
            {"roll": [[2, 3], [1, 4], [5, 6]]},
            {"do": "bid 1 2"},
            {"fault": 1},
            {"expect": {"count": None, "dice": [2, 0, 2]}},
        ],
    }
    assert run_case(faulted) is None
    assert run_case({**faulted, "steps": [{"expect": {"count": 0}}]}) is not None


def test_order_leaves_out_the_seats_out_at_the_start() -> None:
    case = {
        "id": "absent-seat-unranked",
        "start": {"dice": [0, 1, 1], "opener": 1},
        "steps": [
            {"expect": {"order": None}},
            {"roll": [[], [2], [3]]},
            {"do": "bid 1 2"},
            {"do": "dudo"},
            {"expect": {"winner": 1, "order": [1, 2], "palifico": False}},
        ],
    }
    assert run_case(case) is None
    wrong = copy.deepcopy(case)
    wrong["steps"][-1]["expect"]["order"] = [1, 2, 0]
    assert run_case(wrong) is not None


def test_palifico_is_false_once_the_game_is_over() -> None:
    # Seat 1 has just dropped to one die (a palifico round is due) when seat 0 faults out.
    case = {
        "id": "over-is-not-palifico",
        "start": {"dice": [2, 1], "opener": 1, "palifico_round": True},
        "steps": [{"fault": 0}, {"expect": {"winner": 1, "palifico": False, "order": [1, 0]}}],
    }
    assert run_case(case) is None


def with_change(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    case = copy.deepcopy(BASE)
    target = case
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return case


MALFORMED: dict[str, Any] = {
    "unknown case key": {**BASE, "setup": {}},
    "unknown start key": with_change(("start", "seats"), 2),
    "unknown step key": with_change(("steps", 1), {"do": "bid 2 3", "say": "hi"}),
    "step with two kinds": with_change(("steps", 1), {"do": "bid 2 3", "expect": {}}),
    "step with no kind": with_change(("steps", 1), {}),
    "seat on a roll": with_change(("steps", 0, "seat"), 0),
    "unknown expect key": with_change(("steps", 3, "expect", "loser"), 1),
    "unknown rules field": {**BASE, "rules": {"wild_ones": False}},
    "bad rules value": {**BASE, "rules": {"calza": "sometimes"}},
    "bad dice_per_player": {**BASE, "rules": {"dice_per_player": "2"}},
    "rules not an object": {**BASE, "rules": ["calza"]},
    "old and new face change disagree": {
        **BASE,
        "rules": {"palifico_one_die_may_change_face": True, "palifico_face_change": "others"},
    },
    "bad palifico_face_change": {**BASE, "rules": {"palifico_face_change": "some"}},
    "palifico_min_players below 2": {**BASE, "rules": {"palifico_min_players": 1}},
    "open_on_pacos as text": {**BASE, "rules": {"open_on_pacos": "true"}},
    "bad opener_after_elimination": {**BASE, "rules": {"opener_after_elimination": "up"}},
    "calza_max_dice 0": {**BASE, "rules": {"calza_max_dice": 0}},
    "dice above the calza cap too": {
        **with_change(("start", "dice"), [2, 6]),
        "rules": {"calza_max_dice": 5},
    },
    "hand too short": with_change(("steps", 0, "roll"), [[2], [1, 4]]),
    "hand too long": with_change(("steps", 0, "roll"), [[2, 3, 4], [1, 4]]),
    "missing hand": with_change(("steps", 0, "roll"), [[2, 3]]),
    "face 7": with_change(("steps", 0, "roll"), [[2, 7], [1, 4]]),
    "face 0": with_change(("steps", 0, "roll"), [[2, 0], [1, 4]]),
    "face as text": with_change(("steps", 0, "roll"), [[2, "3"], [1, 4]]),
    "garbage action": with_change(("steps", 1), {"do": "raise 2 3"}),
    "garbage refuse": with_change(("steps", 1), {"refuse": "bid two 3"}),
    "action not text": with_change(("steps", 1), {"do": ["bid", 2, 3]}),
    "no start": {k: v for k, v in BASE.items() if k != "start"},
    "no steps": {k: v for k, v in BASE.items() if k != "steps"},
    "steps not a list": {**BASE, "steps": {"roll": []}},
    "opener out of range": with_change(("start", "opener"), 2),
    "dice above the ruleset": with_change(("start", "dice"), [2, 6]),
    "palifico_round not a bool": with_change(("start", "palifico_round"), "yes"),
    "fault by a seat not in the game": with_change(("steps", 1), {"fault": 5}),
    "roll during a round": with_change(("steps", 2), {"roll": [[2, 3], [1, 4]]}),
    "wrong to_act": with_change(("steps", 3, "expect", "to_act"), 0),
    "wrong dice": with_change(("steps", 3, "expect", "dice"), [1, 2]),
    "wrong count": with_change(("steps", 3, "expect", "count"), 3),
    "wrong palifico": with_change(("steps", 3, "expect", "palifico"), False),
    "wrong bid": with_change(("steps", 3, "expect", "bid"), [2, 3]),
    "wrong winner": with_change(("steps", 3, "expect", "winner"), 0),
    "order before the end": with_change(("steps", 3, "expect", "order"), [0, 1]),
    "count before any dudo": with_change(("steps", 1), {"expect": {"count": 0}}),
    "count null after a dudo": with_change(("steps", 3, "expect", "count"), None),
    "palifico as a number": with_change(("steps", 3, "expect", "palifico"), 1),
    "to_act as a bool": with_change(("steps", 3, "expect", "to_act"), True),
    "dice as floats": with_change(("steps", 3, "expect", "dice"), [2.0, 1.0]),
    "do of an illegal action": with_change(("steps", 1), {"do": "bid 2 1"}),
    "do out of turn": with_change(("steps", 1), {"do": "bid 2 3", "seat": 1}),
    "refuse of a legal action": with_change(("steps", 1), {"refuse": "bid 2 3"}),
    "a case that is not an object": ["not", "a", "case"],
}


@pytest.mark.parametrize("case", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_or_wrong_case_fails_with_a_reason(case: Any) -> None:
    reason = run_case(case)
    assert isinstance(reason, str) and reason


def _mutations(case: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Copies of `case` each with one step made wrong: do <-> refuse, or one expectation off."""
    players = len(case["start"]["dice"])
    wrong_value: dict[str, Callable[[Any], Any]] = {
        "to_act": lambda v: (v + 1) % players,
        "dice": lambda v: [v[0] + 1, *v[1:]],
        "bid": lambda v: [1, 2] if v is None else [v[0] + 1, v[1]],
        "palifico": lambda v: not v,
        "count": lambda v: 0 if v is None else v + 1,
        "winner": lambda v: 0 if v is None else (v + 1) % players,
        "order": lambda v: [0] if v is None else v[::-1],
    }
    mutants: list[tuple[str, dict[str, Any]]] = []
    for index, step in enumerate(case["steps"]):
        for kind, flipped in (("do", "refuse"), ("refuse", "do")):
            if kind in step:
                mutant = copy.deepcopy(case)
                mutant["steps"][index] = {
                    **{k: v for k, v in step.items() if k != kind},
                    flipped: step[kind],
                }
                mutants.append((f"step {index + 1}", mutant))
        for key, value in step.get("expect", {}).items():
            mutant = copy.deepcopy(case)
            mutant["steps"][index]["expect"][key] = wrong_value[key](value)
            mutants.append((f"step {index + 1}", mutant))
    return mutants


@pytest.mark.parametrize("case", [case for _, case in ALL_CASES], ids=CASE_IDS)
def test_every_step_of_every_case_is_checked(case: dict[str, Any]) -> None:
    mutants = _mutations(case)
    assert mutants
    for where, mutant in mutants:
        reason = run_case(mutant)
        assert reason is not None, f"{where} made wrong still passes"
        assert reason.startswith(f"{where}:"), reason


# --- files ---------------------------------------------------------------------------------


def run_paths(*paths: Path) -> tuple[int, int, list[str]]:
    out = io.StringIO()
    passed, failed = run_files(list(paths), out)
    return passed, failed, out.getvalue().splitlines()


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def test_a_bare_json_array_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, "bare.json", json.dumps([BASE]))
    assert run_paths(path) == (1, 0, ["PASS base", "1 passed, 0 failed"])


@pytest.mark.parametrize(
    "content",
    [
        "this is not JSON",
        '{"cases": [',
        "[" * 100_000,  # nesting deeper than the JSON parser's recursion limit
        '{"cases": {"id": "x"}}',
        '{"cases": [], "version": 2}',
        "42",
    ],
    ids=["text", "truncated", "deep", "cases-not-list", "extra-top-key", "number"],
)
def test_an_unreadable_file_is_one_fail(tmp_path: Path, content: str) -> None:
    path = write(tmp_path, "broken.json", content)
    passed, failed, lines = run_paths(path)
    assert (passed, failed) == (0, 1)
    assert lines[0].startswith(f"FAIL {path}")
    assert main([str(path)]) == 1


def test_a_missing_file_is_a_fail(tmp_path: Path) -> None:
    assert run_paths(tmp_path / "nowhere.json")[:2] == (0, 1)


def test_a_case_without_an_id_fails(tmp_path: Path) -> None:
    no_id = {k: v for k, v in BASE.items() if k != "id"}
    path = write(tmp_path, "no-id.json", json.dumps([no_id, {**BASE, "id": ""}, BASE]))
    passed, failed, lines = run_paths(path)
    assert (passed, failed) == (1, 2)
    assert lines[0].startswith("FAIL ") and lines[1].startswith("FAIL ")
    assert lines[2] == "PASS base"


def test_duplicate_ids_fail(tmp_path: Path) -> None:
    path = write(tmp_path, "dup.json", json.dumps([BASE, BASE]))
    assert run_paths(path) == (
        1,
        1,
        ["PASS base", "FAIL base: duplicate case id", "1 passed, 1 failed"],
    )
    # Across files too.
    other = write(tmp_path, "other.json", json.dumps([BASE]))
    assert run_paths(write(tmp_path, "one.json", json.dumps([BASE])), other)[:2] == (1, 1)


def test_main_exit_codes(tmp_path: Path) -> None:
    good = write(tmp_path, "good.json", json.dumps({"cases": [BASE]}))
    bad = write(tmp_path, "bad.json", json.dumps({"cases": [MALFORMED["wrong to_act"]]}))
    assert main([str(good)]) == 0
    assert main([str(bad)]) == 1
    assert main([str(good), str(bad)]) == 1
