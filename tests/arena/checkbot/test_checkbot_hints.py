"""A bot author's first mistakes, each met by the very bot that makes it, get one clear hint.

A bridged program that prints a debug line on stdout (every later answer comes
one request late), a JSON-lines program whose `run` forgot the bridge (it reads
an empty stdin and ends before dialling), and a `bot.toml` with a typo in a key.
"""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from arena.checkbot.check import CheckRun, check_bot
from arena.checkbot.probing import STDOUT
from arena.cli.main import main

PROGRAM = """\
import json, sys

first = True
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "request":
        continue
    if first and DEBUG:
        print("debug: my dice are", message["my_dice"], flush=True)  # the mistake
        first = False
    if message["kind"] == "calza_offer":
        answer = {"action": "pass"}
    elif message["dudo_allowed"]:
        answer = {"action": "dudo"}
    else:
        floors = message["min_count"]
        face = max(f for f in range(1, 7) if floors[f - 1])
        answer = {"action": "bid", "count": floors[face - 1], "face": face}
    print(json.dumps({"request_id": message["request_id"], **answer}), flush=True)
"""


def _bot(root: Path, name: str, manifest: str, debug: bool = False) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(f"DEBUG = {debug}\n{PROGRAM}")
    (folder / "bot.toml").write_text(f'name = "{name}"\n{manifest}')
    return folder


def _check(path: Path) -> CheckRun:
    result = asyncio.run(check_bot(path, lambda check: None, 2.0, 30.0))
    if result.log is not None:
        shutil.rmtree(result.log.parent)
    return result


BRIDGED = 'run = "python -m arena.kit.bridge -- python bot.py"\n'


def test_a_debug_line_on_a_bridged_programs_stdout_is_one_failure_that_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _bot(tmp_path, "chatty", BRIDGED, debug=True)
    result = _check(folder)
    (failed,) = [c for c in result.checks if not c.passed]
    assert failed.name == STDOUT and failed.final
    said = failed.detail
    assert "'debug: my dice are [" in said  # the line itself, quoted
    assert "shifts every later answer" in said and "write debug output to stderr" in said
    assert failed.log_tail == ()  # the line is quoted: the log's complaints would repeat it
    assert not [c for c in result.checks if c.name.startswith(("whole game", "opening"))]
    assert result.checks[-1].name == "exits after goodbye" and result.checks[-1].passed

    capsys.readouterr()
    assert main(["check-bot", str(folder)]) == 1
    out = capsys.readouterr().out
    assert out.count("FAIL") == 1 and "PASS connects and says hello" in out
    assert "debug: my dice are [" in " ".join(out.split())

    quiet = _bot(tmp_path, "quiet", BRIDGED)  # the same program without the debug line
    assert _check(quiet).passed


def test_a_json_lines_program_run_without_the_bridge_is_pointed_to_it(tmp_path: Path) -> None:
    folder = _bot(tmp_path, "unbridged", 'run = "python bot.py"\n')
    result = _check(folder)
    failed = {c.name: c.detail for c in result.checks if not c.passed}
    said = failed["connects and says hello"]
    assert "exited with code 0 (success) without ever dialling the referee" in said
    assert 'in its bot.toml: run = "python -m arena.kit.bridge -- python bot.py"' in said
    assert "docs/writing-a-bot.md" in said


def test_an_unknown_bot_toml_key_is_told_the_nearest_known_one(tmp_path: Path) -> None:
    folder = _bot(tmp_path, "typo", BRIDGED + "sesions = 2\nmemory = 512\ncolour = 'red'\n")
    result = _check(folder)
    ((name, said),) = [(c.name, c.detail) for c in result.checks if not c.passed]
    assert name == "manifest"
    assert "'sesions' (did you mean 'sessions'?)" in said
    assert "'memory' (did you mean 'memory_mb'?)" in said
    assert "unknown keys 'colour', 'memory'" in said  # nothing is near colour: no guess
    assert "known: build, build_timeout, connect_timeout" in said
