"""One league server per league: a second one on the same folder or the same store
(SQLite or PostgreSQL) is refused with the first's address, and changes nothing of the
first's: its admin token, its build in flight."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.store.lock import LeagueBusyError
from arena.store.submissions import SubmissionState
from arena.tournament.config import TournamentConfig


def _config(league: Path | str, out: Path) -> LeagueConfig:
    return LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=league,
        out=out,
        defaults=TournamentConfig(bots_dir=None, move_time=1.0),
    )


async def _second_is_refused(first: LeagueConfig, second: LeagueConfig) -> None:
    server = LeagueServer(first)
    await server.start()
    try:
        server.store.begin_submission("u-building", "alice", "a" * 64, 10, 2, 1.0)
        token = admin_token_path(first.league, first.out).read_text()
        other = LeagueServer(second)
        try:
            with pytest.raises(LeagueBusyError) as refused:
                await other.start()
        finally:
            await other.stop()
        said = str(refused.value)
        assert f"bots 127.0.0.1:{server.port}, admin 127.0.0.1:{server.admin_port}" in said
        assert "stop that one first" in said
        assert admin_token_path(first.league, first.out).read_text() == token
        building = server.store.submission("u-building")
        assert building is not None and building.state is SubmissionState.BUILDING
        assert server.health.serving  # the first serves on, untouched
    finally:
        await server.stop()
    again = LeagueServer(second)  # the first gone, the league is free
    await again.start()
    await again.stop()


def test_a_second_server_on_the_same_sqlite_league_is_refused(tmp_path: Path) -> None:
    config = _config(tmp_path / "league.sqlite", tmp_path / "results")
    asyncio.run(_second_is_refused(config, config))


def test_a_second_server_on_the_same_postgres_store_is_refused(
    tmp_path: Path, postgres_url: str
) -> None:
    first = _config(postgres_url, tmp_path / "one")
    second = _config(postgres_url, tmp_path / "two")  # another folder: only the store is shared
    asyncio.run(_second_is_refused(first, second))
