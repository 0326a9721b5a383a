"""The kit installs alone into a fresh virtualenv, and a sample bot plays on it.

The referee is the arena's (this test's interpreter); the bot runs on the
fresh virtualenv's Python, named by path in its manifest, sandboxed as in a
tournament. Needs PyPI (grpcio, protobuf, setuptools).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.checkbot.check import Check, check_bot

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_kit_alone_plays_a_sample_bot(tmp_path: Path) -> None:
    venv = tmp_path / "kit-venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    # From a copy of what the kit packages: setuptools builds in the source's own folder, and
    # a build/ left in the clone would be read by the tests that walk its code.
    source = tmp_path / "source"
    for tree in ("kit", "arena", "engine"):
        skip = shutil.ignore_patterns("__pycache__", "build", "*.egg-info")
        shutil.copytree(ROOT / tree, source / tree, ignore=skip)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", str(source / "kit")], check=True, timeout=600
    )
    listed = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=freeze"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    ).stdout.lower()
    assert "perudo-arena-kit" in listed
    for unwanted in ("rich", "trueskill", "grpcio-tools", "perudo-arena=="):
        assert unwanted not in listed, listed
    # The kit imports from the virtualenv, not from this repository.
    where = subprocess.run(
        [str(python), "-c", "import arena.kit, engine; print(arena.kit.__file__, engine.__file__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
        cwd=tmp_path,
    ).stdout
    assert all(str(venv) in path for path in where.split()), where

    bot = tmp_path / "bots" / "kitted"
    bot.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / "binomial_bot.py", bot / "binomial_bot.py")
    (bot / "bot.toml").write_text(f'name = "kitted"\nrun = "{python} binomial_bot.py"\n')
    checks: list[Check] = []
    result = asyncio.run(check_bot(bot, checks.append))
    assert result.passed, [c for c in checks if not c.passed]
