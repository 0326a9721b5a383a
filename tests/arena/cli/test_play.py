"""`arena play`: a person at a table of bots, driven here by a script on its standard input.

The script answers every prompt from a cycle that mixes garbage and moves
that are wrong at most prompts ("pass" on a turn, a bid too low) with ones
that are right at some ("bid 1 6" opens a round, "dudo" answers any bid,
"pass" a calza offer, which calza "any" makes): each wrong line must be
asked again, never faulted, and the whole game must be played to its end.
A person whose input ends has left the table; a seat the table lacks is
refused before anything starts.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import main

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"
ARENA = Path(sys.executable).parent / "arena"
CYCLE = ["what?", "bid 1 6", "pass", "bid 0 9", "dudo"]


def _bots(tmp_path: Path) -> Path:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(TOURNAMENT_BOTS / f"{name}.py", bots / f"{name}.py")
    return bots


def _play(*args: str, script: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [str(ARENA), "play", *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    for line in done.stdout.splitlines():
        if line.startswith("The bots' logs: "):
            shutil.rmtree(line.removeprefix("The bots' logs: "))
    return done


@pytest.mark.slow
@pytest.mark.parametrize("calza", ["turn", "any"])
def test_a_scripted_person_plays_a_whole_game(tmp_path: Path, calza: str) -> None:
    bots = _bots(tmp_path)
    script = "\n".join(CYCLE * 200) + "\n"
    done = _play("--bots", str(bots), "--seat", "1", "--calza", calza, script=script)
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
    lines = out.splitlines()
    over = next(i for i, line in enumerate(lines) if line.startswith("=== Game play-1 is over"))
    reveal = max(i for i, line in enumerate(lines[:over]) if line.startswith("Round "))
    # The last round's reveal, whole, then the game's end: nothing of the summary among them.
    assert all(line.startswith("  ") for line in lines[reveal + 1 : over]), lines[reveal:over]
    summary = out[out.index("\nGame play-1: ") + 1 :]
    assert out.index("=== Game play-1 is over") < out.index("\nGame play-1: ")
    assert "you" in summary.splitlines()[0]
    assert "  no faults" in summary, summary  # no wrong line ever became a fault
    assert " x " not in out and " 1 dice" not in out  # "one 5", "1 die"


def test_a_person_whose_input_ends_leaves_the_table(tmp_path: Path) -> None:
    done = _play("--bots", str(_bots(tmp_path)), "--games", "3", script="")
    out = done.stdout
    assert done.returncode == 0, (out, done.stderr)
    assert "You leave the table: your input ended." in out
    assert "  you left the table (your input ended): out of the game" in out
    assert "You left the table after 1 of 3 game(s)." in out  # no game dealt without them
    assert "crash" not in out and "process died" not in out and "Traceback" not in done.stderr


def test_a_seat_the_table_does_not_have_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `arena play`'s main() in this process: the refusal comes before any bot."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(["play", "--bots", str(_bots(tmp_path)), "--seat", "4"])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.strip() == (
        "arena play: --seat 4: the table has 3 seats (2 bots and you), so your seat is 0 to 2"
    )
    assert "--- Round" not in out  # refused before any game
