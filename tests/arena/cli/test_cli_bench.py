"""`arena bench` where the benchmarks are, and where they are not (an installed wheel)."""

from __future__ import annotations

from pathlib import Path

import pytest

import arena.cli.bench
from arena.cli.main import main


def test_an_arena_without_the_clones_benchmarks_says_where_they_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(arena.cli.bench, "CLONE", tmp_path)  # a package with no bench/ beside it
    assert main(["bench", "speed", "--json"]) == 1
    err = capsys.readouterr().err
    assert "the benchmarks live in the project's clone" in err and err.count("\n") == 1


def test_a_clone_runs_its_benchmarks(capsys: pytest.CaptureFixture[str]) -> None:
    assert (arena.cli.bench.CLONE / "bench" / "cli.py").is_file()
    with pytest.raises(SystemExit) as exited:
        main(["bench", "timing", "--help"])
    assert exited.value.code == 0 and "--move-time" in capsys.readouterr().out
