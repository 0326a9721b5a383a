"""`arena ab` and `arena run --gauntlet` on the command line: what is refused before anything
starts, in one line naming what to give instead, and nothing created."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from tournament_harness import minimal_info

from arena.cli.main import main
from arena.tournament.plan import AbPlan

BOTS = Path(__file__).resolve().parents[1] / "tournament_bots"


def in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as done:  # argparse's way out
        code = done.code if isinstance(done.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def field(tmp_path: Path) -> Path:
    folder = tmp_path / "field"
    folder.mkdir()
    for name in ("meek", "steady"):
        shutil.copy(BOTS / f"{name}.py", folder / f"{name}.py")
    return folder


def _refused(capsys: pytest.CaptureFixture[str], out: Path, *args: str) -> str:
    code, stdout, err = in_process(capsys, *args, "--out", str(out))
    assert code in (1, 2), stdout + err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert not out.exists()
    return err


def test_new_and_old_of_one_name_are_refused(
    capsys: pytest.CaptureFixture[str], field: Path, tmp_path: Path
) -> None:
    (tmp_path / "v2").mkdir()
    shutil.copy(BOTS / "bold.py", tmp_path / "v2" / "bold.py")
    err = _refused(
        capsys, tmp_path / "out", "ab", str(tmp_path / "v2" / "bold.py"), str(BOTS / "bold.py"),
        "--bots", str(field),
    )  # fmt: skip
    assert "both named bold" in err


def test_a_contender_that_is_no_bot_is_refused_naming_the_field(
    capsys: pytest.CaptureFixture[str], field: Path, tmp_path: Path
) -> None:
    err = _refused(capsys, tmp_path / "out", "ab", "nobody", "meek", "--bots", str(field))
    assert "NEW nobody" in err and "meek, steady" in err


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--elo1", "0"], "--elo0"),
        (["--elo0", "50", "--elo1", "20"], "--elo0"),
        (["--alpha", "0.9"], "--alpha"),
        (["--beta", "nan"], "--beta"),
        (["--pairs", "0"], "--pairs"),
        (["--pairs", "5", "--games", "10"], "--games"),
    ],
)
def test_a_test_that_cannot_be_is_refused(
    capsys: pytest.CaptureFixture[str], field: Path, tmp_path: Path, flags: list[str], says: str
) -> None:
    args = ["ab", str(BOTS / "bold.py"), "meek", "--bots", str(field), *flags]
    assert says in _refused(capsys, tmp_path / "out", *args)


def test_an_ab_folder_is_resumed_by_arena_ab_only(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    folder = tmp_path / "t"
    folder.mkdir()
    info = minimal_info("t", ab=AbPlan("a", "b", 0.0, 40.0, 0.05, 0.05))
    (folder / "tournament.json").write_text(json.dumps(info.to_json()))
    code, _, err = in_process(capsys, "run", "--resume", str(folder))
    assert code == 1 and f"arena ab --resume {folder}" in err
    plain = tmp_path / "p"
    plain.mkdir()
    (plain / "tournament.json").write_text(json.dumps(minimal_info("p").to_json()))
    code, _, err = in_process(capsys, "ab", "--resume", str(plain))
    assert code == 1 and "no A/B test" in err


def test_a_gauntlet_of_no_bot_or_with_disjoint_deals_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    err = _refused(capsys, tmp_path / "out", "run", "--bots", str(BOTS), "--gauntlet", "nobody")
    assert "--gauntlet nobody" in err and "bold, meek, steady" in err
    err = _refused(
        capsys, tmp_path / "out", "run", "--bots", str(BOTS), "--gauntlet", "bold",
        "--deals", "disjoint",
    )  # fmt: skip
    assert "--deals own" in err


def test_a_gauntlets_dry_run_says_its_bot_is_at_every_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = in_process(
        capsys, "run", "--bots", str(BOTS), "--gauntlet", "meek", "--table-size", "2",
        "--games", "4", "--dry-run",
    )  # fmt: skip
    assert code == 0
    assert "meek at every table" in out and "is 4 games" in out.replace("\n", " ")
