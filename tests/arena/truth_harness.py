"""What the tests of the league against its folders share: one small tournament played for
real, copies of its folder in a league of the test's own (SQLite, or PostgreSQL where the
server's binaries are), and the league's whole content, to say it did not change."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tournament_harness import Recorder, copy_bots

from arena.cli.main import main
from arena.store import open_store, recorded
from arena.tournament.config import TournamentConfig
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.tournament import Summary, Tournament

KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.slow)]
"""The stores a test that plays runs on: PostgreSQL's like the other league nights on it."""


def play_night(root: Path) -> Path:
    """A finished tournament of six games (three bots, tables of two), in a league of its own."""
    config = TournamentConfig(
        bots_dir=copy_bots(root / "bots"),
        out=root / "out",
        table_size=2,
        games=6,
        jobs=2,
        name="night",
    )
    summary = asyncio.run(Tournament(config, Recorder()).run())
    assert summary.status == "finished" and summary.games == 6
    return summary.folder


@pytest.fixture(scope="session")
def night(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished night for every test of a worker that needs one (they copy it)."""
    return play_night(tmp_path_factory.mktemp("night"))


def league_at(kind: str, tmp: Path, request: pytest.FixtureRequest) -> Path | str:
    """A new league: a file beside the folders (its own results folder), or a fresh database."""
    if kind == "postgres":
        return str(request.getfixturevalue("postgres_url"))
    return tmp / "out" / "league.sqlite"


def info_of(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "tournament.json").read_text())  # type: ignore[no-any-return]


def write_info(folder: Path, **changes: Any) -> None:
    (folder / "tournament.json").write_text(json.dumps(info_of(folder) | changes))


def copy_night(
    finished: Path, league: Path | str, out: Path, name: str = "night", keep: int | None = None
) -> Path:
    """The tournament again as `name`, in `league`, interrupted with its first `keep` games."""
    folder = out / name
    shutil.copytree(finished, folder)
    write_info(folder, id=name, league=recorded(league), status="interrupted", seed=None)
    if keep is not None:
        lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)
        (folder / "games.jsonl").write_text("".join(lines[:keep]))
    return folder


def enter(league: Path | str, folder: Path) -> None:
    """Into the league, the folder's tournament and games, as its run wrote them."""
    store = open_store(league)
    try:
        info = TournamentFolder(folder).info()
        store.add_tournament(info.id, info.to_json(), started=info.created)
        for line in TournamentFolder(folder).games():
            store.add_game(info.id, line)
    finally:
        store.close()


def content(league: Path | str) -> tuple[object, ...]:
    """Everything the league holds of its tournaments and games."""
    store = open_store(league)
    try:
        games = [(tid, line.to_json()) for tid, line in store.lines()]
        return tuple(store.tournament_infos()), tuple(store.tournaments()), tuple(map(str, games))
    finally:
        store.close()


def resume(folder: Path, league: Path | str) -> Summary:
    """`arena run --resume FOLDER --league LEAGUE`: the league given again, with its password."""
    config = TournamentConfig(bots_dir=None, out=folder.parent, league=league)
    return asyncio.run(Tournament(config, Recorder()).run(resume=folder))


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`arena ARGV` in this process: its exit status, output and errors."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err
