"""`arena check-bot` passes good bots and fails bad ones for the right reason."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from arena.bots.manifest import load_entry
from arena.checkbot.check import Check, CheckRun, check_bot
from arena.checkbot.positions import HOUSE_RULES, probes
from engine import CALZA, refusal

ROOT = Path(__file__).resolve().parents[3]
BAD = Path(__file__).parents[1] / "checkbot_bots"


def run_check(path: Path, move_time: float = 0.5, connect_timeout: float = 10.0) -> CheckRun:
    seen: list[Check] = []
    result = asyncio.run(check_bot(path, seen.append, move_time, connect_timeout))
    assert seen == result.checks  # everything reported is what was recorded, in order
    if result.log is not None:  # check-bot keeps the bot's log for its author; not here
        shutil.rmtree(result.log.parent)
    return result


def failures(result: CheckRun) -> dict[str, str]:
    return {c.name: c.detail for c in result.checks if not c.passed}


def test_every_probe_is_a_real_decision_with_a_legal_answer() -> None:
    for probe in probes():
        state = probe.state
        if probe.offer:
            assert probe.seat != state.to_act
            assert refusal(state, probe.seat, CALZA) is None
        else:
            assert probe.seat == state.to_act


def test_a_good_python_bot_passes_everything() -> None:
    result = run_check(ROOT / "sample_bots" / "strong_bot.py")
    assert result.passed, failures(result)
    names = [c.name for c in result.checks]
    for needed in (
        "connects and says hello",
        "opening",
        "raise after a paco bid",
        "palifico round",
        "calza offer out of turn",
        "house rules: a higher count keeps the face or a higher one",
        "house rules: the palifico player keeps the face",
        "whole game: house rules",
        "keeps playing after game over",
        "exits after goodbye",
    ):
        assert needed in names
    assert sum(name.startswith("whole game") for name in names) >= 3


def test_an_illegal_bidder_fails_with_the_rule_it_broke() -> None:
    result = run_check(BAD / "paco_opener_bot.py")
    assert not result.passed
    failed = failures(result)
    assert "opening" in failed
    assert "bid 2 1" in failed["opening"] and "opening-on-pacos" in failed["opening"]
    assert "raise after a paco bid" not in failed  # it answers dudo there, which is legal


def test_a_bot_that_plays_the_rulebook_whatever_it_is_told_is_caught() -> None:
    result = run_check(BAD / "rulebook_only_bot.py")
    assert not result.passed
    failed = failures(result)
    name = "house rules: a higher count keeps the face or a higher one"
    assert name in failed
    assert "bid 5 2" in failed[name] and "lower-face-with-higher-count" in failed[name]
    # Under the rulebook it told apart nothing wrong: the house rules alone caught it.
    assert not [n for n in failed if not n.startswith(("house rules", "whole game: house"))]


def test_the_house_rules_differ_from_the_rulebook_in_every_variant_field() -> None:
    assert set(HOUSE_RULES.changes()) >= {
        "palifico_face_change",
        "palifico_min_players",
        "open_on_pacos",
        "opener_after_elimination",
        "calza_max_dice",
    }


@pytest.mark.slow
def test_a_slow_bot_fails_on_time() -> None:
    result = run_check(BAD / "slow_bot.py", move_time=0.3)
    failed = failures(result)
    assert "opening" in failed
    assert failed["opening"].startswith("timeout")


def test_a_crashing_bot_is_reported_as_a_crash() -> None:
    result = run_check(BAD / "crash_bot.py")
    failed = failures(result)
    assert "opening" in failed
    assert failed["opening"].startswith(("crash", "disconnect"))
    assert "died" in failed["opening"] or "closed" in failed["opening"]


@pytest.mark.slow
def test_a_bot_that_never_connects_fails_at_hello() -> None:
    result = run_check(BAD / "silent_bot.py", connect_timeout=1.5)
    assert [c.name for c in result.checks] == ["sandbox", "connects and says hello"]
    assert not result.passed
    assert "within" in result.checks[1].detail


@pytest.mark.slow
def test_a_slow_loading_bot_is_given_its_connect_time_for_each_session() -> None:
    result = run_check(BAD / "slow_loading_bot.py", connect_timeout=30.0)
    assert result.passed, failures(result)
    assert "opens 2 session(s) when asked" in [c.name for c in result.checks]


def test_a_folder_without_a_manifest_fails_clearly(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = run_check(tmp_path / "empty")
    assert not result.passed
    assert result.checks[0].name == "manifest"
    assert "bot.toml" in result.checks[0].detail


FOREIGN = sorted(p for p in (ROOT / "sample_bots").iterdir() if p.is_dir())


@pytest.mark.slow
@pytest.mark.timeout(900)  # a cold build: cargo and Maven fetch and compile (build_timeout 900)
@pytest.mark.parametrize("folder", FOREIGN, ids=[p.name for p in FOREIGN])
def test_every_non_python_sample_bot_passes_when_its_toolchain_is_here(folder: Path) -> None:
    spec = load_entry(folder)
    assert spec is not None
    missing = spec.missing_programs()
    if missing:
        pytest.skip(f"{spec.name} needs {', '.join(missing)}, not found on PATH")
    result = run_check(folder, move_time=1.0, connect_timeout=30.0)
    assert result.passed, failures(result)
