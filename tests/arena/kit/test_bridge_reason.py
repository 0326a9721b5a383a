"""Through the bridge, a line the bridge cannot use is a fault that says what was wrong.

A real tournament: a bridged program that prints a debug line to stdout
before its first answer, so that every answer after it is one request late
(a wrong request_id), against a kit bot. The bridge's own complaint about
each line reaches games.jsonl, the replay and `arena replay`, not only the
bot's log.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from tournament_harness import Quiet

from arena.cli.main import main as arena_main
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament
from engine import FaultPenalty, Ruleset

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"

PROGRAM = """\
import json, sys

first = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "request":
        continue
    if first:
        print("debug: thinking about it", flush=True)  # the mistake: a debug line on stdout
        first = False
    answer = {"action": "pass"} if message["kind"] == "calza_offer" else {"action": "dudo"}
    print(json.dumps({"request_id": message["request_id"], **answer}), flush=True)
"""

BRIDGED = """\
import sys
from arena.kit.bridge import main

raise SystemExit(main(["--", sys.executable, "program.py"]))
"""


def _bots(folder: Path) -> Path:
    chatty = folder / "chatty"
    chatty.mkdir(parents=True)
    (chatty / "program.py").write_text(PROGRAM)
    (chatty / "bridged.py").write_text(BRIDGED)
    (chatty / "bot.toml").write_text('name = "chatty"\nrun = "python bridged.py"\n')
    shutil.copy(TOURNAMENT_BOTS / "steady.py", folder / "steady.py")
    return folder


def test_the_bridges_reason_reaches_games_jsonl_and_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = TournamentConfig(
        bots_dir=_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        games=2,
        jobs=1,
        move_time=10.0,  # answers are instant: no loaded machine misses this
        connect_timeout=60,
        name="chat",
        ruleset=Ruleset(fault_penalty=FaultPenalty.LOSE_DIE),  # so every bad line is a fault
    )
    summary = asyncio.run(Tournament(config, Quiet()).run())
    assert summary.status == "finished"
    folder = tmp_path / "out" / "chat"
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    faults = [f for line in lines for f in line["faults"] if f["bot"] == "chatty"]
    assert faults, "the chatty bot committed no fault"
    debug, *stale = [f["detail"] for f in faults if f["game"] == lines[0]["game"]]
    assert debug.startswith("the action has no valid kind")
    assert (
        "the bot says: bridge: a line on the program's stdout is not JSON (debug output goes to "
        "stderr): debug: thinking about it)"
    ) in debug
    assert stale, "the answers one request late were faults too"
    for detail in stale:
        assert "request_id must be" in detail, detail

    exit_code = arena_main(["replay", lines[0]["game"], "--results", str(tmp_path / "out")])
    told = " ".join(capsys.readouterr().out.split())  # as one line: the console wraps
    assert exit_code == 0
    assert "stdout is not JSON (debug output goes to stderr): debug: thinking about it" in told
