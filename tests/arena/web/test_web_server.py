"""The web server in an event loop of its own test: its page, its stream, its refusals."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from test_web_spectator import HANDS, open_table

from arena.records import Decision
from arena.web import stream
from arena.web import web_server as serving
from arena.web.address import WebError, parse_address
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer


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
        tell = open_table(spectator, tmp_path)
        server = WebServer(spectator)
        url = await server.start()
        try:
            async with aiohttp.ClientSession() as http, http.get(url + "events") as stream:
                (first,) = json.loads((await stream.content.readline())[6:])
                assert first["kind"] == "state"
                assert [e["kind"] for e in first["tables"][0]] == ["open", "deal"]
                tell(Decision(0, "bid 4 2", 5.0))
                tell(Decision(1, "bid 5 2", 5.0))
                while (line := await stream.content.readline()) == b"\n":
                    pass
                change = json.loads(line[6:])  # the tick's messages, in one event
                assert [m["kind"] for m in change] == ["table", "table"]
                assert [m["event"]["action"] for m in change] == ["bid 4 2", "bid 5 2"]
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


def chunked_events(raw: bytes) -> list[dict[str, Any]]:
    """The messages of a raw HTTP/1.1 response of server-sent events, chunk by chunk."""
    body = raw.split(b"\r\n\r\n", 1)[1]
    data = b""
    while body:
        size, _, body = body.partition(b"\r\n")
        if not size or int(size, 16) == 0:
            break
        data, body = data + body[: int(size, 16)], body[int(size, 16) + 2 :]
    events = [part for part in data.split(b"\n\n") if part.startswith(b"data: ")]
    return [message for event in events for message in json.loads(event[6:])]


def test_a_page_that_does_not_read_is_passed_over_then_sent_the_state_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(serving, "TICK_S", (0.01, 0.01))
    monkeypatch.setattr(stream, "LOG_BYTES", 2 << 20)  # 16 notes: ample for the quick page
    big = "x" * (1 << 17)

    async def go() -> None:
        spectator = Spectator()
        open_table(spectator, tmp_path)
        server = WebServer(spectator)
        url = await server.start()
        loop = asyncio.get_running_loop()
        slow = socket.socket()
        slow.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow.setblocking(False)
        await loop.sock_connect(slow, (server.host, server.port))
        await loop.sock_sendall(slow, b"GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
        quick = bytearray()
        try:
            async with aiohttp.ClientSession() as http, http.get(url + "events") as response:

                async def read_quick() -> None:
                    async for data in response.content.iter_any():
                        quick.extend(data)

                reader = asyncio.ensure_future(read_quick())
                while spectator.watchers < 2:
                    await asyncio.sleep(0.01)
                for i in range(150):  # 19 MB: more than the sockets hold
                    spectator.note(f"{i:<4}{big}")
                    await asyncio.sleep(0.002)
                spectator.note("last")
                while b'"last"' not in quick:
                    await asyncio.sleep(0.01)
                assert quick.count(b'"kind":"note"') == 151  # the quick page is sent all of it
                raw, last = bytearray(), False
                while not (last and raw.endswith(b"\n\n\r\n")):  # the slow page reads, at last
                    data = await asyncio.wait_for(loop.sock_recv(slow, 1 << 20), 10)
                    raw += data
                    last = last or b'"last"' in raw[-len(data) - 8 :]
                reader.cancel()
        finally:
            slow.close()
            await server.stop()
        assert len(raw) < len(quick) / 2  # never buffered all it missed
        messages = chunked_events(bytes(raw))
        assert messages[0]["kind"] == "state"
        resync = [i for i, m in enumerate(messages) if m["kind"] == "state"][1:]
        assert resync, "the page that fell behind was not sent the state afresh"
        final = messages[-1]  # and it is up to date
        assert final.get("text") == "last" or final["notes"][-1] == "last"

    run(go())
