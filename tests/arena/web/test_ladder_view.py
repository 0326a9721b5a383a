"""The ladder on the league server's pages: the live page's state and stream, the public page
and the author's page, on a real league server whose ladder plays kit bots on 127.0.0.1; and
what the pages make of a status, hostile names and all."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import grpc
from league_harness import SAMPLE_BOTS, League, eventually, run

from arena.league.ladder.rounds import is_ladder
from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.records import GameLine, LeaderboardRow
from arena.store import StoreError
from arena.tournament.config import TournamentConfig
from arena.tournament.report.ratings import rate_all, result_of
from arena.web.ladder_view import LadderFeed, ladder_json
from arena.web.league_view import League as LeagueRecord
from arena.web.portal import author_html
from arena.web.portal.authors import AuthorPages
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer

SCRIPTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}


@contextlib.asynccontextmanager
async def ladder_site(tmp: Path) -> AsyncIterator[tuple[League, str]]:
    """A league server with its live page and league pages (as `arena serve --web` has
    them), its ladder not yet started; the harness's handle on it, and the pages' address."""
    spectator = Spectator()
    pages = AuthorPages(spectator)
    web = WebServer(spectator, "127.0.0.1:0", pages=(pages,))
    url = await web.start()
    config = LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=tmp / "league" / "league.sqlite",
        out=tmp / "results",
        defaults=TournamentConfig(bots_dir=None, reconnect_grace=5.0, move_time=1.0),
    )
    server = LeagueServer(config, watcher=spectator, tables=spectator)
    pages.attach(LeagueRecord(server.store, server.versions, config.out, server.ladder))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
    stub = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
    token = admin_token_path(config.league, config.out).read_text().strip()
    lg = League(server, tmp, stub, [("authorization", f"Bearer {token}")])
    try:
        yield lg, url
    finally:
        for bot in lg.bots:
            if bot.process.poll() is None:
                bot.process.kill()
        for bot in lg.bots:
            bot.process.wait(timeout=10)
        await channel.close(None)
        await server.stop()
        await web.stop()


async def connect(lg: League) -> dict[str, str]:
    tokens = lg.register(*SCRIPTS)
    for name, script in SCRIPTS.items():
        lg.launch(name, tokens[name], sessions=3, script=SAMPLE_BOTS / script)
    await lg.wait_connected(dict.fromkeys(SCRIPTS, 3))
    return tokens


def ladder_lines(lg: League) -> list[tuple[str, GameLine]]:
    return [(tid, line) for tid, line in lg.server.store.lines() if is_ladder(tid)]


class Events:
    """A page's event stream: each message the server sends it, in order."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.messages: list[dict[str, Any]] = []

    async def until(self, wanted: Any, what: str, seconds: float = 30.0) -> dict[str, Any]:
        """The first message from here on that `wanted` takes."""

        async def read() -> dict[str, Any]:
            while True:
                line = await self._response.content.readline()
                if not line.startswith(b"data: "):
                    continue
                for message in json.loads(line[6:]):
                    self.messages.append(message)
                    if wanted(message):
                        return message  # type: ignore[no-any-return]

        try:
            return await asyncio.wait_for(read(), seconds)
        except TimeoutError:
            raise AssertionError(f"not within {seconds} s: {what}") from None


def total_games(ladder: dict[str, Any]) -> int:
    return sum(row["games"] for row in ladder["standings"])


def test_the_live_page_follows_the_ladder_and_its_state_is_the_store(tmp_path: Path) -> None:
    async def body() -> None:
        async with ladder_site(tmp_path) as (lg, url), aiohttp.ClientSession() as http:
            await connect(lg)
            async with http.get(url + "state") as response:
                assert (await response.json())["ladder"] is None  # no ladder: none shown
            async with http.get(url + "league") as response:
                assert "id=ladder" not in await response.text()
            async with http.get(url + "events") as response:
                events = Events(response)
                first = await events.until(lambda m: m["kind"] == "state", "the state")
                assert first["ladder"] is None
                lg.server.ladder.start()
                started = await events.until(lambda m: m["kind"] == "ladder", "the start")
                assert started["ladder"]["state"] == "running"
                # Each game it records reaches the page as it is recorded, with no reload.
                moved = await events.until(
                    lambda m: m["kind"] == "ladder" and total_games(m["ladder"]) >= 3 * 6,
                    "six ladder games on the open page",
                )
                assert moved["ladder"]["latest"]
            await lg.server.ladder.stop()

            async def stopped() -> bool:
                async with http.get(url + "state") as response:
                    ladder = (await response.json())["ladder"]
                return ladder is not None and ladder["state"] == "stopped"

            await eventually(stopped, "the page says the ladder stopped", 10)
            async with http.get(url + "state") as response:
                ladder = (await response.json())["ladder"]
            # The page's board and latest games are the store's, rated afresh here.
            lines = ladder_lines(lg)
            table = rate_all([result_of(line) for _, line in lines]).table()
            assert [(r["bot"], r["games"], r["rating"]) for r in ladder["standings"]] == [
                (s.name, s.games, round(s.conservative, 3)) for s in table
            ]
            assert {r["bot"] for r in ladder["standings"]} == set(SCRIPTS)
            assert [r["rank"] for r in ladder["standings"]] == [1, 2, 3]
            assert ladder["latest"] == [
                {"round": tid, "game": line.game, "ranking": list(line.ranking)}
                for tid, line in reversed(lines[-20:])
            ]
            assert ladder["tables"] == [] and ladder["table_sizes"] == [3]

    run(body)


def rows_of(page: str, ident: str) -> list[str]:
    found = re.search(f"<table id={ident}>(.*?)</table>", page)
    assert found is not None, page
    return re.findall("<tr[^>]*>(.*?)</tr>", found.group(1))[1:]  # past the heading


def test_the_public_and_author_pages_show_the_ladder_and_her_ladder_history(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with ladder_site(tmp_path) as (lg, url):
            tokens = await connect(lg)
            lg.server.ladder.start()
            await eventually(lambda: len(ladder_lines(lg)) >= 6, "six ladder games", 30)
            await lg.server.ladder.stop()
            lines = ladder_lines(lg)
            table = rate_all([result_of(line) for _, line in lines]).table()
            jar = aiohttp.CookieJar(unsafe=True)
            async with aiohttp.ClientSession(cookie_jar=jar) as http:
                async with http.get(url + "league") as response:
                    public = await response.text()
                board = rows_of(public, "ladder-standings")
                assert [re.findall("<td>(.*?)</td>", row)[1] for row in board] == [
                    s.name for s in table
                ]
                latest = rows_of(public, "ladder-games")
                assert len(latest) == min(20, len(lines))
                tid, line = lines[-1]
                href = f"/league/replay/{tid}/{line.game}"
                assert f"href='{href}'" in latest[0]
                assert html.escape(", ".join(line.ranking)) in latest[0]
                async with http.get(url.rstrip("/") + href) as response:
                    assert response.status == 200 and line.game in await response.text()

                form = {"name": "alpha", "token": tokens["alpha"]}
                async with http.post(url + "author/login", data=form) as response:
                    page = await response.text()
            mine = [(tid, g) for tid, g in lines if "alpha" in g.players]
            rows = rows_of(page, "games")
            # Her ladder games, newest first, each hers, with its replay and her own log, in
            # the page's one list of games (never listed twice).
            assert "id=ladder-games" not in page
            assert len(rows) == len(mine)
            for row, (tid, game) in zip(rows, reversed(mine), strict=True):
                assert row.startswith(f"<td>{tid}</td>")
                assert f"href='/league/replay/{tid}/{game.game}'" in row
                assert f"href='/author/log/{tid}/{game.game}'" in row
                place = game.ranking.index("alpha") + 1
                assert f"<td>{place} of {len(game.players)}</td>" in row
            (her,) = rows_of(page, "ladder-standings")
            rank, row = next((r, s) for r, s in enumerate(table, start=1) if s.name == "alpha")
            assert her.startswith(f"<td>{rank}</td><td>alpha</td><td>{row.row(rank).rating:.2f}")
            assert her.endswith(f"<td>{row.games}</td>") and row.games == len(mine)
            # Her ladder rating after each of her ladder games, ending on her row's.
            assert "id=ladder-rating-history" in page
            assert f"to {row.conservative:.2f} over {len(mine)} games" in page

    run(body)


@dataclass(frozen=True)
class _Game:
    round: str
    game_id: str
    ranking: tuple[str, ...]


@dataclass(frozen=True)
class _Table:
    round: str
    seats: tuple[str, ...]


@dataclass(frozen=True)
class _Status:
    running: bool = True
    paused: bool = False
    table_sizes: tuple[int, ...] = (3,)
    tables_said: str = "tables of 3"
    tables: tuple[_Table, ...] = ()
    standings: Sequence[LeaderboardRow] = ()
    latest: Sequence[_Game] = ()
    error: str | None = None

    @property
    def shown(self) -> bool:
        return self.running or bool(self.standings)


@dataclass
class _Source:
    statuses: list[_Status | StoreError] = field(default_factory=list)
    changes: int = 0

    def status(self) -> _Status:
        got = self.statuses.pop(0)
        if isinstance(got, StoreError):
            raise got
        return got

    def rating_path(self, name: str) -> list[float]:
        return []


HOSTILE = "<script>alert(1)</script>'\"&\u202e"


def board_row(rank: int, bot: str) -> LeaderboardRow:
    return LeaderboardRow(rank, bot, 25.0, 2.0, 19.0, 9, 3, 0.33, 2.0, 0, 1.0)


def test_the_feed_reads_the_status_only_when_the_ladder_changed() -> None:
    source = _Source(
        [
            _Status(running=False),
            StoreError("locked"),
            _Status(tables=(_Table("ladder-1", ("a", "b")),)),
        ]
    )
    feed = LadderFeed(source)
    assert feed.poll() and feed.json is None  # stopped, none on record: nothing to show
    assert not feed.poll()  # unchanged: the store is not read
    source.changes += 1
    assert not feed.poll() and feed.json is None  # the store failed: asked again next time
    assert feed.poll() and feed.json is not None and feed.json["tables"][0]["round"] == "ladder-1"
    assert source.statuses == []


def test_the_pages_escape_every_name_and_list_the_newest_game_first() -> None:
    status = _Status(
        tables=(_Table("ladder-000004", (HOSTILE, "b")),),
        standings=(board_row(1, HOSTILE), board_row(2, "b")),
        latest=(_Game("ladder-000003", "g1", ("b", HOSTILE)), _Game("ladder-000004", "g0", ())),
        error=f"{HOSTILE} crashed",
    )
    data = ladder_json(status)
    assert [g["game"] for g in data["latest"]] == ["g0", "g1"]
    assert data["standings"][0]["bot"] == HOSTILE  # the live page sets it as text
    assert data["tables"] == [{"round": "ladder-000004", "seats": [HOSTILE, "b"]}]
    assert data["state"] == "running"
    section = author_html.ladder_section(status)
    assert "<script>" not in section and "\u202e" not in section
    assert section.count(author_html.shown(HOSTILE)) == 4  # in play, trouble, board, a game
    assert section.index("g0") < section.index("g1")
