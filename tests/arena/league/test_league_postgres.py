"""League nights into PostgreSQL end to end: `arena run --league postgresql://...` writes
each game once, `arena leaderboard` reads them, two coordinators share one database, and
a server that goes away mid-run for longer than the run's patience stops the run cleanly,
to be resumed once it is back (a shorter outage: tests/arena/tournament/test_league_writes*)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from league_harness import league, run
from tournament_harness import ARENA, Recorder, copy_bots, lines_of

from arena.league.league_server import admin_token_path
from arena.store import LeagueStore, open_store, recorded
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.tournament import Tournament

LIMIT_S = 120

psycopg = pytest.importorskip("psycopg", reason='pip install -e ".[dev]" (it has [postgres])')


def _run(url: str, bots: Path, out: Path, name: str, games: int) -> subprocess.Popen[str]:
    argv = [str(ARENA), "run", "--bots", str(bots), "--league", url, "--out", str(out)]
    argv += ["--name", name, "--games", str(games), "--table-size", "3", "--jobs", "2"]
    argv += ["--move-time", "1"]
    return subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, COLUMNS="200"),
    )


def _finished(process: subprocess.Popen[str]) -> str:
    out, err = process.communicate(timeout=LIMIT_S)
    assert process.returncode == 0, out + err
    return out


def _info(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "tournament.json").read_text())  # type: ignore[no-any-return]


def _planned(folder: Path) -> set[str]:
    return {g.game_id for g in TournamentFolder(folder).schedule(TournamentFolder(folder).info())}


def _stored(url: str, tournament: str) -> set[str]:
    store = open_store(url)
    try:
        return {line.game for _, line in store.lines([tournament])}
    finally:
        store.close()


def _leaderboard(url: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        [str(ARENA), "leaderboard", "--league", url, "--json"],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def _games_of(folders: list[Path]) -> Counter[str]:
    """Each bot's games, counted from the folders' own games.jsonl."""
    return Counter(p for folder in folders for line in lines_of(folder) for p in line["players"])


@pytest.mark.slow
def test_a_night_writes_to_postgres_and_the_leaderboard_reads_it(
    postgres_url: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    said = _finished(_run(postgres_url, copy_bots(tmp_path / "bots"), out, "night", 6))
    folder = out / "night"
    assert f"Results: {folder}" in said
    assert not (out / "league.sqlite").exists()  # the league went to the server
    assert _info(folder)["league"] == recorded(postgres_url)
    assert "s3cret-pw" not in (folder / "tournament.json").read_text()
    assert _stored(postgres_url, "night") == _planned(folder)
    rows = _leaderboard(postgres_url)
    assert {r["bot"]: r["games"] for r in rows} == _games_of([folder])

    table = subprocess.run(
        [str(ARENA), "leaderboard", "--league", postgres_url],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        env=dict(os.environ, COLUMNS="200"),
        check=False,
    )
    assert table.returncode == 0, table.stderr
    assert "League: 1 tournaments, 6 games" in table.stdout

    # Taken out, and filled in again from its folder: a database is not replaced.
    for argv in (["remove", "night"], ["rebuild", "--results", str(out)]):
        done = subprocess.run(
            [str(ARENA), "league", *argv, "--league", postgres_url],
            capture_output=True,
            text=True,
            timeout=LIMIT_S,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "s3cret-pw" not in done.stdout
    assert "night: 6 games" in done.stdout
    assert _stored(postgres_url, "night") == _planned(folder)


@pytest.mark.slow
def test_two_coordinators_at_once_lose_and_double_no_game(
    postgres_url: str, tmp_path: Path
) -> None:
    bots = copy_bots(tmp_path / "bots")
    # Two league nights on one database at once, from folders of their own (two machines).
    runs = [_run(postgres_url, bots, tmp_path / f"out{i}", f"night{i}", 12) for i in range(2)]
    for process in runs:
        _finished(process)
    folders = [tmp_path / f"out{i}" / f"night{i}" for i in range(2)]
    with psycopg.connect(postgres_url, autocommit=True) as db:
        rows = db.execute("SELECT tournament, COUNT(*) FROM games GROUP BY tournament").fetchall()
    assert sorted(rows) == [("night0", 12), ("night1", 12)]
    for i, folder in enumerate(folders):
        assert _stored(postgres_url, f"night{i}") == _planned(folder)
    rows_of_board = _leaderboard(postgres_url)
    assert {r["bot"]: r["games"] for r in rows_of_board} == _games_of(folders)
    store = open_store(postgres_url)
    try:  # the order the league rates them in: as the nights began
        began = sorted(folders, key=lambda f: (_info(f)["created"], _info(f)["id"]))
        assert [tid for tid, _ in store.tournaments()] == [_info(f)["id"] for f in began]
    finally:
        store.close()


def _cut_off(url: str, allow: bool) -> None:
    """Let no one connect to the league's database (and drop who is), or let them again."""
    database = url.rsplit("/", 1)[1]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS {str(allow).lower()}".encode())
        if not allow:
            db.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database,),
            )


@pytest.mark.slow
def test_a_server_gone_mid_run_stops_it_cleanly_and_a_resume_finishes(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_add_game = LeagueStore.add_game
    written: list[str] = []

    def then_gone(self: LeagueStore, tournament_id: str, line: Any) -> bool:
        if len(written) == 5:
            _cut_off(postgres_url, allow=False)
        written.append(line.game)
        return real_add_game(self, tournament_id, line)

    monkeypatch.setattr(LeagueStore, "add_game", then_gone)
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        table_size=2,
        games=40,
        jobs=2,
        name="cut",
        league=postgres_url,
        store_patience=0.5,
    )
    with pytest.raises(TournamentError) as error:
        asyncio.run(Tournament(config, Recorder()).run())
    message = str(error.value)
    assert "was unreachable for 0.5 s" in message, message
    assert "connecting to it" in message and "s3cret-pw" not in message
    folder = tmp_path / "out" / "cut"
    assert f"arena run --resume {folder}" in message
    lines = lines_of(folder)
    assert 5 < len(lines) <= len(_planned(folder))  # play goes on while it waits
    assert all(line["faults"] == [] for line in lines), "a store error was charged to a bot"
    assert _info(folder)["status"] == "interrupted"

    monkeypatch.undo()
    _cut_off(postgres_url, allow=True)
    again = dataclasses.replace(config, bots_dir=None)  # --league given again, with its password
    summary = asyncio.run(Tournament(again, Recorder()).run(resume=folder))
    assert (summary.status, summary.games) == ("finished", len(_planned(folder)))
    assert _stored(postgres_url, "cut") == _planned(folder)
    assert Counter(x["game"] for x in lines_of(folder)) == Counter(_planned(folder))


def _token(url: str, *argv: str) -> str:
    done = subprocess.run(
        [str(ARENA), "token", *argv, "--league", url],
        capture_output=True,
        text=True,
        timeout=LIMIT_S,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.slow
def test_a_league_server_on_postgres_knows_its_entrants_and_records_their_night(
    postgres_url: str, tmp_path: Path
) -> None:
    tokens = {name: _token(postgres_url, "add", name).split()[-1] for name in ("alpha", "beta")}
    assert _token(postgres_url, "list").split() == ["alpha", "beta"]

    async def body() -> None:
        async with league(tmp_path, store=postgres_url) as lg:
            # A database server has no folder beside it: the admin token is in the results.
            assert admin_token_path(postgres_url, tmp_path / "results").is_file()
            for name, token in tokens.items():
                lg.launch(name, token)
            await lg.wait_connected({"alpha": 1, "beta": 1})
            night = await lg.play(games=4, jobs=1, move_time=2.0, name="remote-night")
            assert night.finished.status == "finished"
            assert _stored(postgres_url, "remote-night") == set(night.schedule_ids())

    run(body)
