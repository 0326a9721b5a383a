"""A league server's store against the league beside it: an empty store beside a league's
versions, tournaments or ladder secret is refused, and so is a ladder secret gone while its
rounds are on record; each with a flag for an organiser who means it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.opening import LeagueOpeningError, Opening
from arena.league.screen import Kind, ScreenEvent
from arena.referee.service.auth import new_token, token_hash
from arena.store import open_store
from arena.submissions.archive import pack
from arena.submissions.client import Server, submit
from arena.submissions.folder import SubmissionsFolder
from arena.tournament.config import TournamentConfig
from arena.tournament.versions import tree_sha256

SAMPLE = Path(__file__).resolve().parents[3] / "sample_bots" / "random_bot.py"


@contextlib.asynccontextmanager
async def serving(tmp: Path, said: list[str], **flags: bool) -> AsyncIterator[LeagueServer]:
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp / "league" / "league.sqlite",
        out=tmp / "results",
        defaults=TournamentConfig(bots_dir=None, move_time=1.0),
        **flags,  # type: ignore[arg-type]
    )

    def tell(event: ScreenEvent) -> None:
        if event.kind is Kind.SUBMISSION:
            said.append(event.text)

    server = LeagueServer(config, tell)
    try:
        await server.start()
        yield server
    finally:
        await server.stop()


def _accepted_then_store_deleted(tmp: Path) -> str:
    folder = tmp / "alice"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "alice"\nrun = "python bot.py"\n')
    (folder / "bot.py").write_bytes(SAMPLE.read_bytes())

    async def body() -> str:
        async with serving(tmp, []) as server:
            token = new_token()
            server.store.set_entrant("alice", token_hash(token))
            address = Server(f"127.0.0.1:{server.port}")
            verdict = await submit(address, token, pack(folder), lambda _: None)
            assert verdict.accepted
            return verdict.sha256

    sha = asyncio.run(body())
    for suffix in ("", "-wal", "-shm"):
        (tmp / "league" / f"league.sqlite{suffix}").unlink(missing_ok=True)
    return sha


def test_an_empty_store_beside_accepted_versions_is_refused_and_nothing_is_touched(
    tmp_path: Path,
) -> None:
    sha = _accepted_then_store_deleted(tmp_path)
    files = SubmissionsFolder(tmp_path / "league" / "submissions")
    token = admin_token_path(tmp_path / "league" / "league.sqlite").read_text()

    async def refused() -> None:
        with pytest.raises(LeagueOpeningError) as error:
            async with serving(tmp_path, []):
                pass
        said = str(error.value)
        assert "is empty, but beside it are 1 accepted versions' folders" in said
        assert "arena league restore" in said and "--new-league" in said

    asyncio.run(refused())
    assert [p.name for p in files.versions.iterdir()] == [sha]
    assert admin_token_path(tmp_path / "league" / "league.sqlite").read_text() == token


def test_a_new_league_over_old_versions_keeps_them_aside(tmp_path: Path) -> None:
    sha = _accepted_then_store_deleted(tmp_path)
    said: list[str] = []

    async def anew() -> Path:
        async with serving(tmp_path, said, new_league=True) as server:
            files = server.versions.files
            assert list(files.versions.iterdir()) == []
            (aside,) = files.quarantine.iterdir()
            return aside

    aside = asyncio.run(anew())
    assert tree_sha256(aside / "source") == sha
    assert any(str(aside) in line for line in said)


def test_results_recorded_into_an_empty_store_are_named(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    store = open_store(league)
    folder = tmp_path / "results" / "night"
    folder.mkdir(parents=True)
    files = SubmissionsFolder(tmp_path / "submissions")
    try:
        opening = Opening(league, tmp_path / "results", files)
        opening.check(store)  # nothing beside it: a new league starts
        (tmp_path / "ladder.secret").write_text("ab" * 32 + "\n")
        with pytest.raises(LeagueOpeningError, match=r"beside it are the ladder's secret"):
            opening.check(store)
        Opening(league, tmp_path / "results", files, new_league=True).check(store)
    finally:
        store.close()


def test_a_ladder_secret_gone_while_its_rounds_are_on_record_is_refused(tmp_path: Path) -> None:
    league = tmp_path / "league" / "league.sqlite"
    league.parent.mkdir()
    store = open_store(league)
    store.add_tournament("ladder-000001", {"id": "ladder-000001"})
    store.close()
    secret = tmp_path / "league" / "ladder.secret"

    async def refused() -> None:
        with pytest.raises(LeagueOpeningError, match=r"holds 1 ladder rounds, but their secret"):
            async with serving(tmp_path, []):
                pass
        assert not secret.exists()  # not made anew behind the organiser's back
        async with serving(tmp_path, [], new_ladder_secret=True):
            pass

    asyncio.run(refused())
