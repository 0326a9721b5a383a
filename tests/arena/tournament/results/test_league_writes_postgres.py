"""A PostgreSQL league server restarted mid-night: the run waits, saying so, plays on, and
finishes with the league equal to the folder; stopped past the patience, the run stops
saying what is true and a resume finishes. A real server, stopped and started with pg_ctl."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from postgres_harness import PostgresServer
from test_league_writes import During, _planned
from tournament_harness import Recorder, copy_bots, lines_of

from arena.store import open_store
from arena.tournament.config import TournamentConfig
from arena.tournament.results.upkeep.check import check
from arena.tournament.tournament import StoppedError, Tournament

pytest.importorskip("psycopg", reason="pip install -e '.[dev]' (it has [postgres])")

OUTAGE_S = 2.0
"""How long the server is down in the restart test: a deliberate fault, not a wait."""


class Restarts:
    """Stops the server, and starts it again (at once, or `after` seconds from the stop, in
    a thread, so play goes on meanwhile); whatever happens, it is running at the end."""

    def __init__(self, server: PostgresServer) -> None:
        self.server = server
        self.stopped_at = 0.0
        self.threads: list[threading.Thread] = []
        self.down = False

    def stop(self) -> None:
        self.server.stop()
        self.stopped_at = time.monotonic()
        self.down = True

    def start_later(self) -> None:
        def later() -> None:
            time.sleep(max(0.0, self.stopped_at + OUTAGE_S - time.monotonic()))
            self.start()

        self.threads.append(threading.Thread(target=later))
        self.threads[-1].start()

    def start(self) -> None:
        if self.down:
            self.server.start()
            self.down = False

    def __enter__(self) -> Restarts:
        return self

    def __exit__(self, *exc: object) -> None:
        for thread in self.threads:
            thread.join()
        self.start()


def _config(url: str, tmp_path: Path, patience: float) -> TournamentConfig:
    return TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        table_size=2,
        games=24,
        jobs=2,
        name="night",
        league=url,
        store_patience=patience,
    )


def _agree(url: str, out: Path, folder: Path) -> None:
    assert Counter(line["game"] for line in lines_of(folder)) == _planned(folder)
    assert check(url, [out]).differences == ()
    store = open_store(url)
    try:
        assert Counter(line.game for _, line in store.lines(["night"])) == _planned(folder)
    finally:
        store.close()


@pytest.mark.slow
def test_a_server_restarted_mid_night_is_waited_out_and_the_night_finishes(
    postgres_server: PostgresServer, postgres_url: str, tmp_path: Path
) -> None:
    config = _config(postgres_url, tmp_path, patience=60.0)
    with Restarts(postgres_server) as restarts:
        seen = During(at=3, after=1, begin=restarts.stop, end=restarts.start_later)
        summary = asyncio.run(Tournament(config, seen).run())
    folder = tmp_path / "out" / "night"
    assert (summary.status, summary.games) == ("finished", 24)
    waited = [n for n in seen.notes if "Waiting up to 60 s" in n]
    assert len(waited) == 1, seen.notes
    assert "is the server running" in waited[0] and "s3cret-pw" not in waited[0]
    assert "reconnects at its next use" not in waited[0]
    back = [n for n in seen.notes if "answers again" in n]
    assert back, seen.notes
    print(f"server down {OUTAGE_S:g} s from game 3; {back[0]}")  # the figure, for the record
    assert all(line["faults"] == [] for line in lines_of(folder)), "the outage hit a bot"
    _agree(postgres_url, tmp_path / "out", folder)


@pytest.mark.slow
def test_a_server_down_past_the_patience_stops_the_night_and_a_resume_finishes(
    postgres_server: PostgresServer, postgres_url: str, tmp_path: Path
) -> None:
    config = _config(postgres_url, tmp_path, patience=1.0)
    folder = tmp_path / "out" / "night"
    with Restarts(postgres_server) as restarts:
        seen = During(at=3, begin=restarts.stop)
        with pytest.raises(StoppedError) as stopped:
            asyncio.run(Tournament(config, seen).run())
    message = str(stopped.value)
    assert "the league store was unreachable for 1 s" in message
    assert f"Stopped with every finished game in {folder / 'games.jsonl'}" in message
    assert f"once the store is back, continue with: arena run --resume {folder}" in message
    assert "s3cret-pw" not in message and "reconnects at its next use" not in message
    # Play went on while the server was down (the last games too, maybe): all on record.
    assert len(lines_of(folder)) == stopped.value.summary.games >= 3
    assert stopped.value.summary.status == "interrupted"

    again = dataclasses.replace(config, bots_dir=None)
    summary = asyncio.run(Tournament(again, Recorder()).run(resume=folder))
    assert (summary.status, summary.games) == ("finished", 24)
    _agree(postgres_url, tmp_path / "out", folder)
