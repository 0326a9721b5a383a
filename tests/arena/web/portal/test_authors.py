"""The league's public page and the author's page over HTTP, on a real league server.

The league was played for real once for the module (`author_harness`): alice's
version submitted through the Submit service, a tournament of three bots at
tables of two, each bot writing its own line to its stderr.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from author_harness import (
    Played,
    Site,
    csrf_of,
    play_league,
    run,
    serving,
    stderr_mark,
    turn_mark,
)

from arena.records import GameLine
from arena.referee.service.auth import new_token, token_hash
from arena.store import open_store
from arena.tournament.results.final_record import (
    RECORD_FILE,
    FinalEntrant,
    FinalRecord,
    FinalState,
    write_record,
)
from arena.web.portal.author_games import PAGE_SIZE
from arena.web.portal.login_limits import LoginLimits
from arena.web.portal.sessions import COOKIE


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("league")
    result: list[Played] = []

    async def body() -> None:
        result.append(await play_league(tmp))

    run(body())
    return result[0]


def client() -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def log_in(http: aiohttp.ClientSession, site: Site, name: str, token: str) -> str:
    """Log in; the author's page's text."""
    form = {"name": name, "token": token}
    async with http.post(f"{site.url}/author/login", data=form) as response:
        assert response.status == 200, await response.text()
        assert str(response.url).endswith("/author")
        return await response.text()


def test_the_league_was_played(played: Played) -> None:
    assert played.alice_verdict.accepted, played.alice_verdict
    assert played.without("alice") and played.with_("alice")


def test_login_is_refused_with_a_wrong_token_and_sets_no_cookie(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            tries = [
                {"name": "alice", "token": played.tokens["bob"]},
                {"name": "alice", "token": played.tokens["alice"] + "x"},
                {"name": "nobody", "token": played.tokens["alice"]},
            ]
            for form in tries:
                async with http.post(
                    f"{site.url}/author/login", data=form, allow_redirects=False
                ) as response:
                    assert response.status == 403
                    assert "No entrant has this name and token." in await response.text()
                    assert COOKIE not in response.cookies
            async with http.get(f"{site.url}/author", allow_redirects=False) as response:
                assert response.status == 303

    run(body())


def client_from(address: str) -> aiohttp.ClientSession:
    """A client whose connections come from `address` (any of 127.0.0.0/8 on loopback)."""
    connector = aiohttp.TCPConnector(local_addr=(address, 0))
    return aiohttp.ClientSession(connector=connector, cookie_jar=aiohttp.CookieJar(unsafe=True))


async def try_login(
    http: aiohttp.ClientSession, site: Site, name: str, token: str
) -> tuple[int, str, aiohttp.ClientResponse]:
    form = {"name": name, "token": token}
    async with http.post(f"{site.url}/author/login", data=form, allow_redirects=False) as response:
        return response.status, await response.text(), response


def test_the_sixth_failed_login_gets_429_and_another_entrant_still_logs_in(played: Played) -> None:
    """Five wrong tokens for alice from 127.0.0.1: the sixth try from there is refused, for
    any name; bob, and alice herself, log in from 127.0.0.2 all the while."""

    async def body() -> None:
        stopped = LoginLimits(clock=lambda: 1000.0)  # no failure leaves its minute mid-test
        async with serving(played, stopped) as site:
            async with client_from("127.0.0.1") as guesser:
                for n in range(5):
                    status, _, _ = await try_login(guesser, site, "alice", f"guess-{n}")
                    assert status == 403, n
                status, page, response = await try_login(guesser, site, "alice", "guess-5")
                assert status == 429, page
                assert "Too many failed logins for this address: try again in 60 seconds" in page
                assert response.headers["Retry-After"] == "60"
                assert "name=token" in page and COOKIE not in response.cookies
                # Refused before the token is looked at: the right one too, from there.
                status, _, _ = await try_login(guesser, site, "bob", played.tokens["bob"])
                assert status == 429
            async with client_from("127.0.0.2") as other:
                status, page, response = await try_login(other, site, "bob", played.tokens["bob"])
                assert status == 303 and COOKIE in response.cookies, page
                status, page, _ = await try_login(other, site, "alice", played.tokens["alice"])
                assert status == 303, page

    run(body())


def test_a_lockout_attempt_from_other_addresses_does_not_keep_the_author_out(
    played: Played,
) -> None:
    """Issue 35: wrong guesses for alice from five addresses (each until it is refused) used
    to lock alice's name out from anywhere. Now each guessing address is locked out, for
    alice's right token too, and alice logs in from an address of her own, fresh or known."""

    async def body() -> None:
        stopped = LoginLimits(clock=lambda: 1000.0)
        async with serving(played, stopped) as site:
            async with client_from("127.0.0.9") as known:  # alice has logged in from here
                status, _, _ = await try_login(known, site, "alice", played.tokens["alice"])
                assert status == 303
            for n in range(3, 8):
                async with client_from(f"127.0.0.{n}") as guesser:
                    for guess in range(5):
                        status, _, _ = await try_login(guesser, site, "alice", f"g{n}-{guess}")
                        assert status == 403
                    right = played.tokens["alice"]
                    status, page, _ = await try_login(guesser, site, "alice", right)
                    assert status == 429 and "for this address" in page
            async with client_from("127.0.0.9") as known, client_from("127.0.0.2") as fresh:
                for http in (known, fresh):
                    status, page, response = await try_login(
                        http, site, "alice", played.tokens["alice"]
                    )
                    assert status == 303 and COOKIE in response.cookies, page

    run(body())


@pytest.mark.parametrize(
    "header",
    [
        {"Origin": "http://evil.example"},
        {"Origin": "null"},
        {"Referer": "http://evil.example/login.html"},
        {"Origin": "http://127.0.0.1:1"},  # this host, another port: another site
    ],
    ids=["origin", "null-origin", "referer", "other-port"],
)
def test_a_login_sent_from_another_sites_page_is_refused(
    played: Played, header: dict[str, str]
) -> None:
    """Login CSRF (issue 35): a page elsewhere must not log its visitor in as its own
    author. The right name and token, sent from another site, get no session."""

    async def body() -> None:
        async with serving(played) as site, client() as http:
            form = {"name": "alice", "token": played.tokens["alice"]}
            async with http.post(
                f"{site.url}/author/login", data=form, headers=header, allow_redirects=False
            ) as response:
                page = await response.text()
                assert response.status == 403, page
                assert "sent from a page of another site" in page
                assert COOKIE not in response.cookies
            async with http.get(f"{site.url}/author", allow_redirects=False) as response:
                assert response.status == 303

    run(body())


def test_a_login_from_the_servers_own_page_is_taken(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            form = {"name": "alice", "token": played.tokens["alice"]}
            own = {"Origin": site.url, "Referer": f"{site.url}/author/login"}
            for headers in (own, {"Referer": f"{site.url}/author/login"}, {}):
                async with http.post(
                    f"{site.url}/author/login", data=form, headers=headers, allow_redirects=False
                ) as response:
                    assert response.status == 303, (headers, await response.text())
                    assert COOKIE in response.cookies

    run(body())


def test_the_session_cookie_is_httponly_strict_random_and_no_token(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            ids = []
            for _ in range(2):
                form = {"name": "alice", "token": played.tokens["alice"]}
                async with http.post(
                    f"{site.url}/author/login", data=form, allow_redirects=False
                ) as response:
                    assert response.status == 303
                    assert response.headers["Location"] == "/author"
                    raw = response.headers.getall("Set-Cookie")
                    morsel = response.cookies[COOKIE]
                    ids.append(morsel.value)
            [header] = [h for h in raw if h.startswith(COOKIE + "=")]
            flags = {part.strip().split("=")[0].lower() for part in header.split(";")}
            assert {"httponly", "samesite", "path", "max-age"} <= flags
            assert "samesite=strict" in header.lower()
            assert ids[0] != ids[1] and len(ids[0]) >= 40
            assert played.tokens["alice"] not in header
            assert "token" not in response.headers["Location"]

    run(body())


def test_pages_without_a_session_send_to_the_login(played: Played) -> None:
    async def body() -> None:
        game = played.with_("alice")
        async with serving(played) as site, client() as http:
            for path in ("/author", f"/author/log/night1/{quote(game.game)}", "/author/log/night1"):
                async with http.get(site.url + path, allow_redirects=False) as response:
                    assert response.status == 303, path
                    assert response.headers["Location"] == "/author/login"
            async with http.post(
                f"{site.url}/author/upload", data={"csrf": "x"}, allow_redirects=False
            ) as response:
                assert response.status == 303

    run(body())


def test_alice_sees_her_own_and_never_bobs(played: Played) -> None:
    async def body() -> None:
        hers, theirs = played.with_("alice"), played.without("alice")
        async with serving(played) as site, client() as http:
            page = await log_in(http, site, "alice", played.tokens["alice"])
            assert "version 1: accepted" in page
            assert "build log" in page and "check report" in page
            assert f"/league/replay/night1/{quote(hers.game)}" in page
            assert theirs.game not in page  # bob and carol's game is not hers
            assert "id=rating-history" in page and "id=head-to-head" in page
            async with http.get(f"{site.url}/author/log/night1/{quote(hers.game)}") as response:
                assert response.status == 200
                log = await response.text()
            # The game's part: her turns in it, not what she wrote before any game.
            assert "id=part" in log and html.escape(turn_mark("alice")) in log
            assert html.escape(stderr_mark("alice")) not in log
            for other in ("bob", "carol"):
                assert f"{other} says" not in log
            assert "href='/author/log/night1'" in log
            async with http.get(f"{site.url}/author/log/night1") as response:
                assert response.status == 200
                whole = await response.text()
            assert html.escape(stderr_mark("alice")) in whole
            assert html.escape(turn_mark("alice")) in whole
            assert "bob says" not in whole and "carol says" not in whole
            for path in (
                f"/author/log/night1/{quote(theirs.game)}",  # a game she did not play
                "/author/log/night1/..%2Flogs%2Fbob",
                "/author/log/..%2Fnight1/x",
                "/author/log/nowhere/x",
                "/author/log/nowhere",  # a tournament she did not play in
                "/author/log/..%2Fnight1",
            ):
                async with http.get(site.url + path, allow_redirects=False) as response:
                    assert response.status == 404, path
                    assert stderr_mark("bob") not in await response.text()
            async with http.get(f"{site.url}/league/replay/night1/{quote(hers.game)}") as reply:
                assert reply.status == 200
                assert "<script" in await reply.text()

    run(body())


def test_a_link_where_the_log_goes_is_not_followed(played: Played, tmp_path: Path) -> None:
    async def body() -> None:
        logs = played.out / "night1" / "logs"
        secret = tmp_path / "secret.txt"
        secret.write_text("the organiser's secret\n")
        carol = logs / "carol.log"
        kept = carol.read_bytes()
        carol.unlink()
        carol.symlink_to(secret)
        try:
            async with serving(played) as site, client() as http:
                await log_in(http, site, "carol", played.tokens["carol"])
                game = played.with_("carol")
                async with http.get(f"{site.url}/author/log/night1/{quote(game.game)}") as reply:
                    assert reply.status == 404
                    text = await reply.text()
                    assert "link" in text and "secret" not in text
        finally:
            carol.unlink()
            carol.write_bytes(kept)

    run(body())


def test_a_game_without_a_sound_part_in_the_index_shows_the_whole_log(played: Played) -> None:
    """The index gone (a crash, a night played before there was one), torn, or a link: the
    whole log, with a line saying so; never what the link points at."""

    async def body() -> None:
        index = played.out / "night1" / "logs" / "bob.log.index"
        kept = index.read_bytes()
        game = played.with_("bob").game
        torn = b"".join(
            line for line in kept.splitlines(keepends=True) if game.encode() not in line
        )
        cases = {
            "missing": (None, "no index of its games was kept"),
            "torn": (torn + b'{"game": "' + game.encode(), "its index has no part for this game"),
            "link": (played.out / "night1" / "logs" / "carol.log.index", "is a link"),
        }
        try:
            async with serving(played) as site, client() as http:
                await log_in(http, site, "bob", played.tokens["bob"])
                for case, (content, why) in cases.items():
                    index.unlink(missing_ok=True)
                    if isinstance(content, bytes):
                        index.write_bytes(content)
                    elif content is not None:
                        index.symlink_to(content)
                    url = f"{site.url}/author/log/night1/{quote(game)}"
                    async with http.get(url) as response:
                        assert response.status == 200, case
                        page = await response.text()
                    assert "id=instead" in page and why in page, (case, page)
                    assert "Its whole log of the tournament is shown." in page
                    assert html.escape(stderr_mark("bob")) in page  # from before any game
                    assert "carol says" not in page
        finally:
            index.unlink(missing_ok=True)
            index.write_bytes(kept)

    run(body())


def test_upload_and_logout_need_the_sessions_csrf_token(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            page = await log_in(http, site, "bob", played.tokens["bob"])
            token = csrf_of(page)
            before = len(site.server.store.submissions("bob"))
            for sent in ({}, {"csrf": "forged"}):
                form = aiohttp.FormData(sent)
                form.add_field("archive", b"not even an archive", filename="bot.tar.gz")
                async with http.post(f"{site.url}/author/upload", data=form) as response:
                    assert response.status == 403
                async with http.post(
                    f"{site.url}/author/logout", data=sent, allow_redirects=False
                ) as response:
                    assert response.status == 403
            assert len(site.server.store.submissions("bob")) == before
            plain = {"csrf": token, "archive": "x"}  # not the page's form
            async with http.post(f"{site.url}/author/upload", data=plain) as response:
                assert response.status == 400
            form = aiohttp.FormData({"csrf": token})
            form.add_field("archive", b"not even an archive", filename="bot.tar.gz")
            async with http.post(f"{site.url}/author/upload", data=form) as response:
                assert response.status == 200
                assert "rejected: " in await response.text()
            async with http.post(
                f"{site.url}/author/logout", data={"csrf": token}, allow_redirects=False
            ) as response:
                assert response.status == 303
            async with http.get(f"{site.url}/author", allow_redirects=False) as response:
                assert response.status == 303

    run(body())


def test_the_public_page_shows_the_leaderboard_and_games(played: Played) -> None:
    async def body() -> None:
        async with (
            serving(played) as site,
            client() as http,
            http.get(f"{site.url}/league") as response,
        ):
            assert response.status == 200
            page = await response.text()
        assert "id=leaderboard" in page
        for name in ("alice", "bob", "carol"):
            assert f"<td>{name}</td>" in page
        for game in played.games:
            assert f"/league/replay/night1/{quote(game.game)}" in page
        assert stderr_mark("alice") not in page

    run(body())


def test_the_public_page_shows_the_seasons_final_with_its_intervals(played: Played) -> None:
    entrants = (
        FinalEntrant("bob", 2, "s", 0.61, 0.42, 0.8, 1, 1, 40, 25),
        FinalEntrant("<b>eve</b>", 1, "t", -0.61, -0.8, -0.42, 2, 2, 40, 15),
    )
    record = FinalRecord(FinalState.FINISHED, 1000.0, "final-season-1", entrants, 2000.0, 0.95)
    write_record(played.out, record)

    async def body() -> None:
        async with (
            serving(played) as site,
            client() as http,
            http.get(f"{site.url}/league") as response,
        ):
            page = await response.text()
        rows = rows_of(page, "final")
        assert "<h2>The season's final, 95% intervals</h2>" in page
        assert "final-season-1 ended 1970-01-01 00:33:20 UTC" in page
        assert "<td>bob</td><td>v2</td><td>0.61</td><td>0.42 .. 0.80</td><td>1-1</td>" in rows[0]
        assert "&lt;b&gt;eve&lt;/b&gt;" in rows[1] and "<b>eve" not in page

    try:
        run(body())
    finally:
        (played.out / RECORD_FILE).unlink()


def rows_of(page: str, ident: str) -> list[str]:
    found = re.search(f"<table id={ident}>(.*?)</table>", page)
    assert found is not None, page
    return re.findall("<tr[^>]*>(.*?)</tr>", found.group(1))[1:]  # past the heading


def test_versions_come_first_and_each_game_names_its_version(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            page = await log_in(http, site, "alice", played.tokens["alice"])
        order = [page.index(f"<h2>{h}</h2>") for h in ("Versions", "Standing", "Games")]
        assert order == sorted(order) and page.index("build log") < order[1]
        rows = rows_of(page, "games")
        hers = [g for g in played.games if "alice" in g.players]
        assert len(rows) == len(hers) and all("<td>v1</td>" in row for row in rows)

    run(body())


def test_games_are_filtered_by_version_opponent_result_and_fault(played: Played) -> None:
    hers = [g for g in played.games if "alice" in g.players]

    async def page_of(http: aiohttp.ClientSession, site: Site, query: str) -> list[str]:
        async with http.get(f"{site.url}/author?{query}") as response:
            assert response.status == 200
            return rows_of(await response.text(), "games")

    async def body() -> None:
        async with serving(played) as site, client() as http:
            await log_in(http, site, "alice", played.tokens["alice"])
            with_bob = await page_of(http, site, "opponent=bob")
            assert len(with_bob) == sum("bob" in g.players for g in hers) > 0
            assert all("<td>bob</td>" in row for row in with_bob)
            won = await page_of(http, site, "result=won")
            assert len(won) == sum(g.ranking[0] == "alice" for g in hers)
            assert all("<td>1 of 2</td>" in row for row in won)
            lost = await page_of(http, site, "result=lost")
            assert len(won) + len(lost) == len(hers)
            assert await page_of(http, site, "version=2") == []
            assert len(await page_of(http, site, "version=1")) == len(hers)
            assert await page_of(http, site, "fault=any") == []  # the samples never fault
            assert len(await page_of(http, site, "fault=none&page=1")) == len(hers)
            for bad in ("page=0", "version=v1", "result=draw", "fault=boredom"):
                async with http.get(f"{site.url}/author?{bad}") as response:
                    assert response.status == 400, bad
                    assert bad.split("=")[0] in await response.text()

    run(body())


def test_the_head_to_head_table_counts_the_games_against_each_opponent(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            page = await log_in(http, site, "alice", played.tokens["alice"])
        rows = {re.findall("<td>(.*?)</td>", row)[0]: row for row in rows_of(page, "head-to-head")}
        for other in ("bob", "carol"):
            met = [g for g in played.games if {"alice", other} <= set(g.players)]
            ahead = sum(g.ranking.index("alice") < g.ranking.index(other) for g in met)
            cells = re.findall("<td>(.*?)</td>", rows[other])
            assert cells[1:3] == [str(len(met)), str(ahead)]
            assert re.fullmatch(r"\d+-\d+%", cells[4])

    run(body())


def test_a_fault_page_is_found_for_no_game_without_her_fault(played: Played) -> None:
    """The fast half of test_fault_pages: no page for another's game or a fault not there."""
    hers, theirs = played.with_("alice"), played.without("alice")

    async def body() -> None:
        async with serving(played) as site, client() as http:
            async with http.get(
                f"{site.url}/author/fault/night1/{quote(hers.game)}/1", allow_redirects=False
            ) as response:
                assert response.status == 303
            await log_in(http, site, "alice", played.tokens["alice"])
            for path in (
                f"/author/fault/night1/{quote(hers.game)}/1",  # she committed none
                f"/author/fault/night1/{quote(theirs.game)}/1",  # not her game
                f"/author/fault/..%2Fnight1/{quote(hers.game)}/1",
                "/author/fault/night1/nothing/1",
            ):
                async with http.get(site.url + path) as response:
                    assert response.status == 404, path

    run(body())


def test_the_games_are_paged(tmp_path: Path) -> None:
    """A season longer than a page: each page holds at most PAGE_SIZE games, newest first,
    and links to the next."""
    league = tmp_path / "league" / "league.sqlite"
    league.parent.mkdir()
    store = open_store(league)
    token = new_token()
    store.set_entrant("alice", token_hash(token))
    games = 2 * PAGE_SIZE + 20
    store.add_tournament("night1", {"id": "night1", "bots": {}}, started=1.0)
    for i in range(games):
        ranking = ("alice", "bob") if i % 2 else ("bob", "alice")
        store.add_game("night1", GameLine(f"g{i:03d}", i, ("alice", "bob"), ranking, (), {}))
    store.close()
    played = Played(league, tmp_path / "results", {"alice": token}, [], None)  # type: ignore[arg-type]

    async def body() -> None:
        async with serving(played) as site, client() as http:
            first = await log_in(http, site, "alice", token)
            async with http.get(f"{site.url}/author?page=3") as response:
                last = await response.text()
        rows = rows_of(first, "games")
        assert len(rows) == PAGE_SIZE and f">g{games - 1:03d}<" in rows[0]
        assert f"{games} games, newest first; page 1 of 3." in first
        assert "<a rel=next href='/author?page=2'>older</a>" in first
        assert len(rows_of(last, "games")) == 20 and ">g000<" in rows_of(last, "games")[-1]
        assert "rel=next" not in last and "<a rel=prev href='/author?page=2'>" in last

    run(body())
