"""check-bot gives a bot the connect time its manifest allows, and names that limit past it."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from late_loader import late_loader

from arena.checkbot.check import CONNECTS, Check, CheckRun, check_bot


def _check(path: Path, connect_timeout: float) -> CheckRun:
    seen: list[Check] = []
    result = asyncio.run(check_bot(path, seen.append, 0.5, connect_timeout))
    if result.log is not None:
        shutil.rmtree(result.log.parent)
    return result


@pytest.mark.slow
def test_a_bot_loading_past_the_default_passes_within_its_manifests_time(tmp_path: Path) -> None:
    # Loads for 3 s, with a default of 1 s: only its manifest's 60 s lets it in.
    bot = late_loader(tmp_path, "late", load_s=3.0, connect_timeout=60)
    result = _check(bot, connect_timeout=1.0)
    assert result.passed, [c for c in result.checks if not c.passed]
    assert any(c.name == CONNECTS and c.passed for c in result.checks)


@pytest.mark.slow
def test_a_bot_loading_past_its_manifests_time_fails_naming_that_limit(tmp_path: Path) -> None:
    bot = late_loader(tmp_path, "later", load_s=120.0, connect_timeout=1.5)
    result = _check(bot, connect_timeout=60.0)
    assert not result.passed
    [connects] = [c for c in result.checks if c.name == CONNECTS]
    assert not connects.passed
    assert "nothing within 1.5 s (connect_timeout in its bot.toml)" in connects.detail
