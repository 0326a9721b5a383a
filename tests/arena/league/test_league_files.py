"""A fresh league's files on disk: the store (and its -wal and -shm), the ladder's secret and
the admin token are readable by the server's user alone, its submissions' folders too,
whatever the umask lets others read (issue 35: `league.sqlite` was created readable by all)."""

from __future__ import annotations

import asyncio
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league.league_server import LeagueConfig, LeagueServer


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The usual umask (022): what it makes is readable by all unless made otherwise."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_fresh_leagues_store_secret_and_token_are_its_users_alone(
    tmp_path: Path, open_umask: None
) -> None:
    results = tmp_path / "results"
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=results / "league.sqlite",
        out=results,
        ladder=True,
    )

    async def body() -> None:
        server = LeagueServer(config)
        await server.start()
        try:
            secret = results / "ladder.secret"
            for _ in range(200):  # the ladder makes its secret as it starts
                if secret.exists():
                    break
                await asyncio.sleep(0.05)
            private = ["league.sqlite", "league.sqlite-wal", "league.sqlite-shm"]
            private += ["ladder.secret", "admin.token"]
            modes = {name: oct(mode(results / name)) for name in private}
            assert modes == dict.fromkeys(private, "0o600")
            for folder in (results / "submissions").iterdir():
                assert mode(folder) == 0o700, folder
        finally:
            await server.stop()

    asyncio.run(body())
