"""`/author/export.jsonl` over HTTP, on a real league server: an author logged in downloads
her own games, the very lines `arena league export --author` writes, and never another's."""

from __future__ import annotations

import json

import aiohttp
import pytest
from author_harness import Played, Site, client, play_league, run, serving
from test_authors import log_in
from truth_harness import arena


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("league")
    result: list[Played] = []

    async def body() -> None:
        result.append(await play_league(tmp))

    run(body())
    return result[0]


async def _download(http: aiohttp.ClientSession, site: Site, query: str = "") -> str:
    async with http.get(f"{site.url}/author/export.jsonl{query}") as response:
        assert response.status == 200
        assert response.headers["Content-Type"].startswith("application/x-ndjson")
        assert response.headers["Cache-Control"] == "no-store"
        assert "Content-Length" not in response.headers  # streamed as it is read
        assert "alice-games.jsonl" in response.headers["Content-Disposition"]
        return await response.text()


def test_an_author_downloads_her_own_games_as_the_export_writes_them(
    played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    got: dict[str, str] = {}

    async def body() -> None:
        async with serving(played) as site, client() as http:
            page = await log_in(http, site, "alice", played.tokens["alice"])
            assert "href='/author/export.jsonl'" in page
            got["alice"] = await _download(http, site)
            # The entrant is the session's: nothing the address says chooses another.
            got["asked for bob"] = await _download(http, site, "?author=bob")

    run(body())
    code, exported, err = arena(
        capsys,
        "league",
        "export",
        "--author",
        "alice",
        "--league",
        str(played.league),
        "--results",
        str(played.out),
    )
    assert code == 0, err
    assert got["alice"] == exported == got["asked for bob"]
    games = [json.loads(line) for line in got["alice"].splitlines()]
    assert len(games) == sum("alice" in g.players for g in played.games) > 0
    assert all("alice" in g["players"] for g in games)
    theirs = played.without("alice").game
    assert theirs not in {g["game"] for g in games}


def test_the_download_needs_a_session(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            url = f"{site.url}/author/export.jsonl"
            async with http.get(url, allow_redirects=False) as response:
                assert response.status == 303
                assert response.headers["Location"] == "/author/login"
                assert '"game"' not in await response.text()

    run(body())
