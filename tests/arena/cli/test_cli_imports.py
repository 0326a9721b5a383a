"""What a command loads before it works: `arena --help`, and `arena verify` and `arena replay`,
which read a folder, load neither numpy, scipy, aiohttp nor the referee (most of a second on
a quiet machine); each command loads its own work when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

HEAVY = (
    "numpy",
    "scipy",
    "aiohttp",
    "trueskill",
    "arena.referee.service.referee_server",
    "arena.referee.session.session",
)


def _loaded(*modules: str) -> list[str]:
    code = (
        "import importlib, json, sys\n"
        f"for m in {list(modules)!r}: importlib.import_module(m)\n"
        f"print(json.dumps([m for m in {list(HEAVY)!r} if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_verify_and_replay_load_nothing_heavy() -> None:
    assert _loaded("arena.cli.verify", "arena.cli.replay", "arena.tournament.config") == []


def test_the_whole_command_line_loads_nothing_heavy_to_say_its_help() -> None:
    assert _loaded("arena.cli.main") == []  # every command's parser, none of its work


def test_the_rankings_load_their_names_when_first_used() -> None:
    assert _loaded("arena.rankings") == []
    from arena.rankings import LEVEL, confidence, wilson

    assert LEVEL == 0.95 and callable(confidence) and callable(wilson)
