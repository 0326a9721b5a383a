"""Each game's part of a bot's log, marked by a real tournament of real bot processes.

Three copies of a bot that writes a line to its stderr on every request,
naming the game, play at tables of two with one game at a time (--jobs 1):
each game's part of each bot's log holds every line the bot wrote in that
game and no line of another game.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sys
from collections import Counter
from pathlib import Path

import pytest
from tournament_harness import Quiet

from arena.bots.run.gamelogs import index_of, parse_index
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament

DIARIST = Path(__file__).resolve().parents[2] / "harness_bots" / "turn_diarist.py"
NAMES = ("ann", "ben", "cat")
DIARY = re.compile(rb"(\w+) diary: turn \d+ of game \[([^\]]+)\]\n")


def lines_in(data: bytes) -> Counter[tuple[str, str]]:
    """The diary lines in `data`, counted by (bot, game)."""
    return Counter((m[1].decode(), m[2].decode()) for m in DIARY.finditer(data))


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("diary")
    bots = root / "bots"
    bots.mkdir()
    for name in NAMES:
        (bots / f"{name}.py").write_text(DIARIST.read_text())
    config = TournamentConfig(
        bots_dir=bots,
        out=root / "out",
        games=6,
        jobs=1,
        table_size=2,
        move_time=10.0,  # answered at once: a limit no loaded machine reaches
        connect_timeout=60,
        name="diary",
    )
    summary = asyncio.run(Tournament(config, Quiet()).run())
    assert summary.status == "finished"
    return root / "out" / "diary"


def played(folder: Path) -> dict[str, set[str]]:
    """The games each bot played, from games.jsonl."""
    games: dict[str, set[str]] = {name: set() for name in NAMES}
    for text in (folder / "games.jsonl").read_text().splitlines():
        line = json.loads(text)
        for name in line["players"]:
            games[name].add(line["game"])
    return games


def test_each_games_part_holds_that_games_lines_and_no_others(night: Path) -> None:
    games = played(night)
    for name in NAMES:
        log = (night / "logs" / f"{name}.log").read_bytes()
        parts = parse_index(index_of(night / "logs" / f"{name}.log").read_bytes())
        assert set(parts) == games[name], name  # its games, and only its
        whole = lines_in(log)
        assert {game for (who, game) in whole} == games[name]
        for game, part in parts.items():
            said = lines_in(log[part.start : part.end])
            assert said, (name, game)
            assert set(said) == {(name, game)}, (name, game, said)  # no other game's line
            assert said[(name, game)] == whole[(name, game)]  # every line it wrote in it
        # The parts do not overlap: one game at a time.
        spans = sorted((p.start, p.end) for p in parts.values())
        assert all(a[1] <= b[0] for a, b in itertools.pairwise(spans))


if sys.platform != "linux":
    pytestmark = pytest.mark.skip("Linux only (FIONREAD on a pipe)")
