"""The bot author's guide and the tools agree: its `arena check-bot` sample is what a real
check of its minimal bot prints, and its minimal bots pass that check."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest

from arena.bots.isolation.sandbox import SandboxMode
from arena.checkbot.check import CheckRun, check_bot

ROOT = Path(__file__).parents[1]
GUIDE = ROOT / "docs" / "writing-a-bot.md"
EXAMPLES = ROOT / "docs" / "examples"
TALLY = re.compile(r"(\d+) passed, (\d+) failed")


def _check(path: Path, sandbox: SandboxMode = SandboxMode.OFF) -> CheckRun:
    result = asyncio.run(check_bot(path, lambda check: None, 2.0, 60.0, sandbox=sandbox))
    if result.log is not None:
        shutil.rmtree(result.log.parent)
    return result


def _sample() -> list[str]:
    """The lines of the guide's sample of `arena check-bot` output (section 6.1)."""
    section = GUIDE.read_text().split("### 6.1 ", 1)[1]
    block = section.split("```\n", 2)[1]
    assert block.startswith("$ .venv/bin/arena check-bot "), block[:80]
    return block.splitlines()


def test_the_guides_check_bot_sample_is_a_real_check_of_its_minimal_bot() -> None:
    sample = _sample()
    checked = sample[0].split()[-1]
    assert checked == "~/bots/minimal_bot.py"  # the bot of section 1, copied there
    result = _check(EXAMPLES / "python" / "minimal_bot.py")
    assert result.passed, [(c.name, c.detail) for c in result.checks if not c.passed]
    names = [c.name for c in result.checks]
    shown = [line.removeprefix("PASS ") for line in sample if line.startswith("PASS ")]
    assert len(shown) >= 8
    at = 0
    for line in shown:  # each a real check, in the order the check makes them
        found = [i for i, name in enumerate(names) if i >= at and line.startswith(name + ": ")]
        assert found, f"the guide shows a check that check-bot does not make: {line}"
        at = found[0] + 1
    real = f"{len(result.checks)} passed, 0 failed"
    assert f"\n{real}\n" in "\n".join(sample) + "\n"
    for said in TALLY.finditer(GUIDE.read_text()):  # no other tally anywhere in the guide
        assert said[0] == real, said[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler (cc)")
def test_the_c_skeleton_builds_and_passes_check_bot_in_the_sandbox(tmp_path: Path) -> None:
    folder = tmp_path / "minimal_c"
    shutil.copytree(EXAMPLES / "c", folder)
    result = _check(folder, SandboxMode.AUTO)
    assert result.passed, [(c.name, c.detail) for c in result.checks if not c.passed]
    assert ("build", True) in [(c.name, c.passed) for c in result.checks]
    assert sum(c.name.startswith("whole game") for c in result.checks) >= 4


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("javac") is None or shutil.which("bwrap") is None,
    reason="needs a JDK (javac) and bubblewrap",
)
def test_the_java_bridge_example_builds_with_javac_and_passes_check_bot_in_the_sandbox(
    tmp_path: Path,
) -> None:
    # requires = ["java", "javac"]: the JDK's home and its /etc/java-* shown, nothing more.
    folder = tmp_path / "minimal_java"
    shutil.copytree(EXAMPLES / "java", folder)
    result = _check(folder, SandboxMode.REQUIRE)
    assert result.passed, [(c.name, c.detail) for c in result.checks if not c.passed]
    assert ("build", True) in [(c.name, c.passed) for c in result.checks]
    assert sum(c.name.startswith("whole game") for c in result.checks) >= 4
