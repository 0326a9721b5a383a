"""The ruleset from the command line: presets, a flag per field, and `--rule FIELD=VALUE`."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli.main import main
from arena.store import SqliteStore
from engine import PRESETS


def _bots(folder: Path) -> Path:
    folder.mkdir()
    for name in ("one", "two"):
        (folder / f"{name}.py").write_text("raise SystemExit(0)\n")
    return folder


def _rules_said(capsys: pytest.CaptureFixture[str]) -> str:
    out = " ".join(capsys.readouterr().out.split())
    return out.split("rules: ", 1)[1].split(";", 1)[0]


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        ([], "the rulebook's defaults"),
        (["--rules", "pub"], "calza=off, palifico=False, open_on_pacos=True"),
        (
            ["--palifico-face-change", "others", "--palifico-min-players", "3"],
            "palifico_face_change=others, palifico_min_players=3",
        ),
        (
            ["--open-on-pacos", "--opener-after-elimination", "right", "--calza-max-dice", "5"],
            "open_on_pacos=True, opener_after_elimination=right, calza_max_dice=5",
        ),
        (["--one-die-may-change-face"], "palifico_face_change=all"),
        (
            ["--rule", "calza_max_dice=6", "--rule", "open_on_pacos=true"],
            "open_on_pacos=True, calza_max_dice=6",
        ),
        (["--rule", "palifico_one_die_may_change_face=true"], "palifico_face_change=all"),
        (["--rules", "pub", "--rule", "open_on_pacos=false"], "calza=off, palifico=False"),
        (["--calza-max-dice", "4", "--rule", "calza_max_dice=null"], None),
    ],
)
def test_a_dry_run_says_the_rules_each_way_of_giving_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], said: str | None
) -> None:
    bots = _bots(tmp_path / "bots")
    code = main(["run", "--bots", str(bots), "--dry-run", *flags])
    if said is None:  # a field given two values two ways is refused in one line
        assert code == 1
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "calza_max_dice" in err and "--rule" in err
        return
    assert code == 0
    assert _rules_said(capsys) == said


@pytest.mark.parametrize(
    "flags",
    [
        ["--rule", "palifico_min_players=1"],
        ["--rule", "palifico_face_change=some"],
        ["--rule", "opener_after_elimination=up"],
        ["--palifico-min-players", "1"],
        ["--calza-max-dice", "0"],
        ["--palifico-face-change", "any"],
    ],
)
def test_a_bad_rule_value_is_refused_naming_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    bots = _bots(tmp_path / "bots")
    with pytest.raises(SystemExit) as refused:
        main(["run", "--bots", str(bots), "--dry-run", *flags])
    assert refused.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert flags[0] in err


def test_old_and_new_face_change_that_disagree_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = _bots(tmp_path / "bots")
    flags = ["--one-die-may-change-face", "--palifico-face-change", "others"]
    assert main(["run", "--bots", str(bots), "--dry-run", *flags]) == 1
    assert "give palifico_face_change alone" in capsys.readouterr().err


OLD_RULEBOOK = {
    "dice_per_player": 5,
    "opener": "rolloff",
    "lower_face_with_higher_count": True,
    "calza": "turn",
    "palifico": True,
    "palifico_once": True,
    "palifico_one_die_may_change_face": False,
    "fault_penalty": "eliminate",
}
"""A rulebook tournament's ruleset as tournament.json held it before the variant fields."""


@pytest.mark.parametrize(
    ("flags", "kept"),
    [
        (["--rules", "rulebook"], ["old-rulebook", "new-rulebook"]),
        (["--rule", "palifico_face_change=none"], ["old-rulebook", "new-rulebook", "pub"]),
        (["--rule", "palifico_one_die_may_change_face=true"], []),
        (["--rule", "palifico=true"], ["old-rulebook", "new-rulebook"]),
        (["--rule", "open_on_pacos=false"], ["old-rulebook", "new-rulebook"]),
        (["--rules", "pub"], ["pub"]),
        (["--rule", "open_on_pacos=true"], ["pub"]),
    ],
)
def test_the_leaderboard_reads_tournaments_stored_before_the_variant_fields(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], kept: list[str]
) -> None:
    league = tmp_path / "league.sqlite"
    store = SqliteStore(league)
    try:
        stored = {
            "old-rulebook": OLD_RULEBOOK,
            "new-rulebook": PRESETS["rulebook"].to_mapping(),
            "pub": PRESETS["pub"].to_mapping(),
        }
        for tid, ruleset in stored.items():
            store.add_tournament(tid, {"id": tid, "ruleset": ruleset, "table_size": 2})
    finally:
        store.close()
    assert main(["leaderboard", "--league", str(league), *flags]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert f"League: {len(kept)} tournaments (of 3, filtered)" in said
