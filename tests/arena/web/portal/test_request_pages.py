"""The author's test games on the web, on a real league server: the form takes a request
only with the session's CSRF token and from this site, says a refusal in words, and the
request is played and shown (with its replays) to its author alone, and rated nowhere."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator

import aiohttp
import pytest
from author_harness import Played, Site, config, csrf_of, play_league, run

from arena.league.league_server import LeagueServer
from arena.store.requests import RequestState
from arena.tournament.report.standings import board
from arena.web.league_view import League
from arena.web.portal.authors import AuthorPages
from arena.web.portal.request_pages import RequestPages
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer

WAIT_S = 90.0


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("league")
    result: list[Played] = []

    async def body() -> None:
        result.append(await play_league(tmp))

    run(body())
    return result[0]


@contextlib.asynccontextmanager
async def serving(played: Played) -> AsyncIterator[Site]:
    spectator = Spectator()
    authors = AuthorPages(spectator)
    web = WebServer(spectator, "127.0.0.1:0", pages=(authors, RequestPages(authors)))
    await web.start()
    server = LeagueServer(config(played.league, played.out))
    authors.attach(League(server.store, server.versions, played.out, None, server.requests))
    await server.start()
    try:
        yield Site(server, web)
    finally:
        await server.stop()
        await web.stop()


def client() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def log_in(http: aiohttp.ClientSession, site: Site, name: str, token: str) -> str:
    async with http.post(f"{site.url}/author/login", data={"name": name, "token": token}) as r:
        assert r.status == 200 and str(r.url).endswith("/author"), await r.text()
        return await r.text()


async def get(http: aiohttp.ClientSession, url: str) -> tuple[int, str]:
    async with http.get(url) as response:
        return response.status, await response.text()


def test_a_request_from_the_form_is_played_and_shown_to_its_author_alone(
    played: Played,
) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http, client() as other:
            store = site.server.store
            rated = board(store.lines()).rows()
            _, league_page = await get(http, f"{site.url}/league")
            status, page = await get(http, f"{site.url}/author/requests")
            assert status == 200 and "Log in" in page  # sent to the login first
            author = await log_in(http, site, "alice", played.tokens["alice"])
            assert "href='/author/requests'" in author
            status, page = await get(http, f"{site.url}/author/requests")
            assert status == 200 and "None yet." in page and "ask 20 more time(s)" in page
            csrf = csrf_of(page)
            url = f"{site.url}/author/requests"

            ask = {"against": "bob", "games": "2", "csrf": csrf}
            async with http.post(url, data={**ask, "csrf": "forged"}) as response:
                assert response.status == 403
            foreign = {"Origin": "https://elsewhere.example"}
            async with http.post(url, data=ask, headers=foreign) as response:
                assert response.status == 403
            async with http.post(url, data={**ask, "against": "zoe"}) as response:
                assert response.status == 400
                assert "this league has no entrant &#x27;zoe&#x27;" in await response.text()
            assert store.requests() == []

            async with http.post(url, data=ask) as response:
                assert response.status == 200 and str(response.url).endswith("/author/requests")
                assert "request-000001" in await response.text()
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_S
            while (row := store.request("request-000001")) is None or row.state in (
                RequestState.QUEUED,
                RequestState.PLAYING,
            ):
                assert loop.time() < deadline, f"not played within {WAIT_S:g} s"
                await asyncio.sleep(0.2)
            assert row.state is RequestState.PLAYED and len(row.played) == 2, row

            status, page = await get(http, url)
            assert "against bob@1: ahead in" in page and "of 2</li>" in page
            replays = re.findall(r"href='(/author/requests/request-000001/[^']+)'", page)
            assert len(replays) == 2
            status, replay = await get(http, site.url + replays[0])
            assert status == 200 and "<html" in replay.lower()

            # Never rated: the league's games, leaderboard and public page are as they were.
            assert "request-000001" not in {t for t, _ in store.lines()}
            assert board(store.lines()).rows() == rated
            assert (await get(http, f"{site.url}/league"))[1] == league_page

            # Bob sees none of it: not the request, not its replays.
            await log_in(other, site, "bob", played.tokens["bob"])
            status, page = await get(other, url)
            assert "None yet." in page and "request-000001" not in page
            status, _ = await get(other, site.url + replays[0])
            assert status == 404
            assert [r.uid for r in store.requests("alice")] == ["request-000001"]

    run(body())
