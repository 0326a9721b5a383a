"""`arena play`: a person at a table of bots, driven here by a script on its standard input.

The script answers every prompt from a cycle that mixes garbage and moves
that are wrong at most prompts ("pass" on a turn, a bid too low) with ones
that are right at some ("bid 1 6" opens a round, "dudo" answers any bid,
"pass" a calza offer, which calza "any" makes): each wrong line must be
asked again, never faulted, and the whole game must be played to its end.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"
ARENA = Path(sys.executable).parent / "arena"
CYCLE = ["what?", "bid 1 6", "pass", "bid 0 9", "dudo"]


@pytest.mark.slow
@pytest.mark.parametrize("calza", ["turn", "any"])
def test_a_scripted_person_plays_a_whole_game(tmp_path: Path, calza: str) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(TOURNAMENT_BOTS / f"{name}.py", bots / f"{name}.py")
    script = "\n".join(CYCLE * 200) + "\n"
    done = subprocess.run(
        [str(ARENA), "play", "--bots", str(bots), "--seat", "1", "--calza", calza],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    out = done.stdout
    assert done.returncode == 0, (out, done.stderr)
    assert "--- Round 1, game play-1" in out
    assert "<- you" in out and "Your dice: " in out
    assert "Bids so far: " in out  # the bots' bids, by name
    assert "Round 1 ends by " in out and "counted." in out  # the reveal
    # The first prompt always meets the garbage that starts the cycle; which of the
    # other wrong lines are met depends on the dice.
    assert "Not that: type bid COUNT FACE" in out  # asked again
    assert "=== Game play-1 is over: " in out
    summary = out[out.index("Game play-1: ") :]
    assert "you" in summary.splitlines()[0]
    assert "  no faults" in summary, summary  # no wrong line ever became a fault
    for line in out.splitlines():
        if line.startswith("The bots' logs: "):
            shutil.rmtree(line.removeprefix("The bots' logs: "))
