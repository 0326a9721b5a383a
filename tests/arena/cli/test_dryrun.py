"""`arena run --dry-run` says what the real run would do: which bots it would build, and that
it would refuse a run whose optional extra is missing."""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

import pytest

from arena.bots.builds.build import run_build
from arena.bots.manifest import load_entry
from arena.cli.main import main

BOTS = Path(__file__).parents[1] / "tournament_bots"
BUILD = "#!/bin/sh\nset -e\nmkdir -p bin\ncp source.txt bin/made\n"


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The build stamps of this test's bots, in a cache of its own."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _bots(folder: Path) -> Path:
    folder.mkdir()
    for name in ("bold", "meek"):
        shutil.copy(BOTS / f"{name}.py", folder / f"{name}.py")
    for name in ("built", "fresh"):
        bot = folder / name
        bot.mkdir()
        (bot / "build.sh").write_text(BUILD)
        (bot / "source.txt").write_text(f"{name}\n")
        (bot / "bot.toml").write_text(
            f'name = "{name}"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
        )
    return folder


def _dry_run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(["run", *args, "--dry-run", "--games", "4"])
    out, err = capsys.readouterr()
    return code, " ".join(out.split()), err


def test_only_a_bot_the_run_would_build_is_said_to_be_built(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = _bots(tmp_path / "bots")
    built = load_entry(bots / "built")
    assert built is not None
    assert asyncio.run(run_build(built, {}, tmp_path / "build.log")) is None  # a real build
    code, said, err = _dry_run(capsys, "--bots", str(bots), "--out", str(tmp_path / "out"))
    assert code == 0, err
    assert "built: unchanged since its last build: would not be built again" in said
    assert "built: would build" not in said
    assert "fresh: would build with `sh build.sh`" in said
    code, said, err = _dry_run(
        capsys, "--bots", str(bots), "--out", str(tmp_path / "out"), "--rebuild"
    )
    assert code == 0, err
    assert "built: would build with `sh build.sh`" in said  # --rebuild builds regardless
    (bots / "built" / "source.txt").write_text("changed\n")
    code, said, err = _dry_run(capsys, "--bots", str(bots), "--out", str(tmp_path / "out"))
    assert "built: would build with `sh build.sh`" in said  # its files changed
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    ("flags", "blocked", "words"),
    [
        (["--web"], ("aiohttp", "arena.web.web_server"), "--web needs the web extra (aiohttp"),
        (
            ["--league", "postgresql://nobody@127.0.0.1:1/none"],
            ("psycopg", "arena.store.postgres"),
            "a postgresql:// league needs psycopg",
        ),
        (["--cluster", "auto"], ("ray",), "--cluster needs Ray"),
    ],
)
def test_a_missing_extra_the_run_refuses_is_refused_by_the_dry_run_too(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    flags: list[str],
    blocked: tuple[str, ...],
    words: str,
) -> None:
    package, *loaded = blocked
    monkeypatch.setitem(sys.modules, package, None)  # importing it fails, as when not installed
    for module in loaded:
        monkeypatch.delitem(sys.modules, module, raising=False)
    bots = _bots(tmp_path / "bots")
    code, said, err = _dry_run(capsys, "--bots", str(bots), "--out", str(tmp_path / "out"), *flags)
    assert code == 1
    assert "4 bots would play" in said  # the plan first, then the refusal
    assert err.startswith("arena run: the run would be refused: ") and words in err, err
    assert len(err.splitlines()) == 1  # one line, no traceback
    assert not (tmp_path / "out").exists()
