"""The web server in an event loop of its own test: its page, its stream, its refusals."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path

import aiohttp
import pytest
from test_web_spectator import HANDS, open_table

from arena.records import Answer
from arena.web.address import WebError, parse_address
from arena.web.server import WebServer
from arena.web.spectator import Spectator


def run(coro: object) -> None:
    asyncio.run(asyncio.wait_for(coro, 30))  # type: ignore[arg-type]


def test_the_page_and_its_files_are_served_from_the_package() -> None:
    async def go() -> None:
        server = WebServer(Spectator())
        url = await server.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(url) as page:
                    html = await page.text()
                assert page.status == 200 and "static/render.js" in html
                for name in ("render.js", "live.js", "style.css"):
                    async with http.get(url + "static/" + name) as part:
                        assert part.status == 200 and len(await part.text()) > 100
                async with http.get(url + "static/..%2Fserver.py") as outside:
                    assert outside.status == 404
        finally:
            await server.stop()

    run(go())


def test_a_late_page_gets_the_current_state_then_each_change(tmp_path: Path) -> None:
    async def go() -> None:
        spectator = Spectator()
        open_table(spectator, tmp_path)
        server = WebServer(spectator)
        url = await server.start()
        try:
            async with aiohttp.ClientSession() as http, http.get(url + "events") as stream:
                first = json.loads((await stream.content.readline())[6:])
                assert first["kind"] == "state"
                assert [e["kind"] for e in first["tables"][0]] == ["open", "deal"]
                spectator.table_event("g1", Answer(0, "bid 4 2", 5.0))
                while (line := await stream.content.readline()) == b"\n":
                    pass
                change = json.loads(line[6:])
                assert change["kind"] == "table" and change["event"]["action"] == "bid 4 2"
                assert json.dumps(list(HANDS[0])) not in json.dumps([first, change])
        finally:
            await server.stop()

    run(go())


def test_a_port_in_use_is_one_clear_error_and_nothing_is_served() -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]

    async def go() -> None:
        with pytest.raises(WebError, match=f"cannot serve the web page on 127.0.0.1:{port}"):
            await WebServer(Spectator(), f"127.0.0.1:{port}").start()

    try:
        run(go())
    finally:
        taken.close()


def test_an_unknown_replay_is_a_404_that_says_so(tmp_path: Path) -> None:
    async def go() -> None:
        spectator = Spectator()
        open_table(spectator, tmp_path)
        folder = spectator.folder
        assert folder is not None
        (folder / "replays").mkdir()
        (folder / "replays" / "broken.json").write_text("{not json")
        server = WebServer(spectator)
        url = await server.start()
        try:
            async with aiohttp.ClientSession() as http:
                async with http.get(url + "replay/nosuch") as missing:
                    assert missing.status == 404
                    assert "no replay of game 'nosuch'" in await missing.text()
                async with http.get(url + "replay/broken") as broken:
                    assert broken.status == 404
                    assert "is not a replay" in await broken.text()
        finally:
            await server.stop()

    run(go())


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        ("127.0.0.1:0", ("127.0.0.1", 0)),
        (":8080", ("127.0.0.1", 8080)),
        ("0.0.0.0", ("0.0.0.0", 0)),
    ],
)
def test_addresses(given: str, wanted: tuple[str, int]) -> None:
    assert parse_address(given) == wanted


def test_a_port_that_is_no_number_is_refused() -> None:
    with pytest.raises(WebError, match="the port must be a number"):
        parse_address("localhost:http")
