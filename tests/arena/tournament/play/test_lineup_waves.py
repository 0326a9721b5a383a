"""Bots start in waves, and each one's connect time counts from its own start.

The bots here load one at a time, each holding a shared lock while it does,
as bots that all need the machine's only free core would: started all at
once, the last ones would wait for every other's load and run out of connect
time through no fault of their own.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tournament_harness import BOTS, Recorder

from arena.bots.isolation.sandbox import SandboxMode
from arena.tournament.config import TournamentConfig
from arena.tournament.play import lineup
from arena.tournament.tournament import Tournament

BOTS_HERE = 8
LOAD_S = 0.6
CONNECT_S = 4.0
"""Eight loads one after another take 4.8 s, past it; a wave of two waits for one other load."""

_LOADING = """
import fcntl as _fcntl, time as _time
with open({lock!r}, "a") as _lock:
    _fcntl.flock(_lock, _fcntl.LOCK_EX)
    _time.sleep({load!r})
"""


def _loading_bots(folder: Path, lock: Path) -> Path:
    folder.mkdir()
    text = (BOTS / "meek.py").read_text()
    head, marker, rest = text.partition("from arena.kit import")
    for i in range(BOTS_HERE):
        prelude = _LOADING.format(lock=str(lock), load=LOAD_S)
        (folder / f"loader{i}.py").write_text(head + prelude + marker + rest)
    return folder


def test_bots_that_load_in_turn_all_connect_when_started_in_waves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(lineup, "MIN_WAVE", 2)
    monkeypatch.setattr(lineup, "STARTING_PER_CORE", 0)
    config = TournamentConfig(
        bots_dir=_loading_bots(tmp_path / "bots", tmp_path / "load.lock"),
        out=tmp_path / "out",
        table_size=2,
        games=BOTS_HERE,
        jobs=2,
        connect_timeout=CONNECT_S,
        sandbox=SandboxMode.OFF,  # the bots share a lock file outside their folders
    )
    recorder = Recorder()
    summary = asyncio.run(Tournament(config, recorder).run())
    assert summary.skipped == ()
    assert {s.name for s in summary.table} == {f"loader{i}" for i in range(BOTS_HERE)}
    assert summary.status == "finished"
