"""`--recover`: a bot whose process died is started again, its crash still a fault, up to a cap.

The crashing bot counts its lives in marker files in a folder outside its
own (so these runs are unsandboxed): each of its first CRASHES processes
dies on its first request.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.bots.isolation.sandbox import SandboxMode
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament

TOURNAMENT_BOTS = Path(__file__).parents[2] / "tournament_bots"

CRASHY = """\
import os
from pathlib import Path

from arena.kit import PASS, run
from engine import DUDO, Bid

LIVES = Path({lives!r})
life = len(list(LIVES.iterdir()))
(LIVES / str(os.getpid())).touch()


def act(obs):
    if life < {crashes}:
        os._exit(1)  # its first request, in each of its first lives
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo:
        return DUDO
    face = max(f for f in range(1, 7) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
"""


@dataclass
class Notes:
    notes: list[str] = field(default_factory=list)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: object) -> None:
        pass

    def game_finished(self, line: object, table: object, progress: object) -> None:
        pass


def _night(tmp_path: Path, crashes: int, recover: int) -> tuple[list[dict[str, Any]], Notes, Any]:
    bots, lives = tmp_path / "bots", tmp_path / "lives"
    bots.mkdir()
    lives.mkdir()
    (bots / "crashy.py").write_text(CRASHY.format(lives=str(lives), crashes=crashes))
    shutil.copy(TOURNAMENT_BOTS / "steady.py", bots / "steady.py")
    config = TournamentConfig(
        bots_dir=bots,
        out=tmp_path / "out",
        games=6,  # a table of two, two rotations: three rounds of the schedule
        jobs=1,  # one game at a time: the crash's game is over before the next begins
        move_time=10.0,
        connect_timeout=60,
        name="night",
        sandbox=SandboxMode.OFF,  # the bot keeps its lives outside its own folder
        recover=recover,
    )
    notes = Notes()
    summary = asyncio.run(Tournament(config, notes).run())
    assert summary.status == "finished"
    folder = tmp_path / "out" / "night"
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    info = json.loads((folder / "tournament.json").read_text())
    return sorted(lines, key=lambda x: x["index"]), notes, info


def _faults(line: dict[str, Any]) -> list[str]:
    return [f["kind"] for f in line["faults"] if f["bot"] == "crashy"]


def test_a_bot_that_crashes_once_is_restarted_and_plays_on(tmp_path: Path) -> None:
    lines, notes, info = _night(tmp_path, crashes=1, recover=3)
    faults = [_faults(line) for line in lines]
    assert faults[0] == ["crash"], faults  # the crash is a fault in the game it was in
    assert all(f == [] for f in faults[1:]), faults  # and the restarted bot plays the rest
    assert info["restarts"] == {"crashy": 1}
    [said] = [n for n in notes.notes if "restarting" in n]
    assert said.startswith("crashy: its process exited with code 1") and "1 of 3" in said


def test_restarts_stop_at_the_cap_and_the_rest_are_faults(tmp_path: Path) -> None:
    lines, notes, info = _night(tmp_path, crashes=100, recover=1)
    faults = [_faults(line) for line in lines]
    assert faults[:2] == [["crash"], ["crash"]], faults  # the first life, then the restarted
    assert all(f == ["disconnect"] for f in faults[2:]), faults  # no session: as without it
    assert info["restarts"] == {"crashy": 1}
    assert any("its 1 restarts are spent" in n for n in notes.notes), notes.notes
