"""The live page's web server: aiohttp in the referee's own event loop.

It serves the static page, a stream of server-sent events per page (the
spectator's state first, then every change), the state as JSON, and each
finished game's HTML replay. A page's pace is its own: its stream reads the
spectator's one log of frames five times a second and sends what is new in
one write, so a hundred pages cost the referee a few hundred writes a
second however fast the games go, and one on a bad network holds up only
its own stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
from pathlib import Path

from aiohttp import web

from arena.records import Json
from arena.web.address import DEFAULT_ADDRESS, WebError, parse_address
from arena.web.replay_page import ReplayPageError, replay_page
from arena.web.spectator import Spectator
from arena.web.static_files import static_text

FLUSH_S = 0.2
"""How often a page's stream sends what happened since: one write per page per flush,
however many decisions were made, so pages cost the referee by their number, not by the
pace of play (a decision every millisecond would otherwise be a write per page each)."""
KEEPALIVE_S = 15.0
"""A comment line this often keeps an idle stream open through proxies."""
_GAME_ID = re.compile(r"[A-Za-z0-9_.-]+")
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


class WebServer:
    def __init__(self, spectator: Spectator, address: str = DEFAULT_ADDRESS) -> None:
        self.spectator = spectator
        self.host, self.port = parse_address(address)
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    async def start(self) -> str:
        """Listen, and return the page's address; a port in use is a WebError, nothing opened."""
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        try:
            sock.bind((self.host, self.port))
            sock.listen(128)
        except OSError as error:
            sock.close()
            why = error.strerror or str(error)
            raise WebError(
                f"cannot serve the web page on {self.host}:{self.port}: {why}; "
                f"choose another with --web HOST:PORT (port 0 picks a free one)"
            ) from None
        sock.setblocking(False)
        self.port = sock.getsockname()[1]
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/events", self._events)
        app.router.add_get("/state", self._state)
        app.router.add_get("/replay/{game}", self._replay)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner
        return self.url

    async def stop(self) -> None:
        self.spectator.close()  # every stream ends at its next flush: no need to wait them out
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=static_text("live.html"), content_type="text/html")

    async def _static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        kind = _TYPES.get(Path(name).suffix)
        if kind is None or "/" in name or name.startswith("."):
            raise web.HTTPNotFound()
        try:
            return web.Response(text=static_text(name), content_type=kind)
        except FileNotFoundError:
            raise web.HTTPNotFound() from None

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self.spectator.snapshot())

    async def _replay(self, request: web.Request) -> web.Response:
        game = request.match_info["game"]
        folder = self.spectator.folder
        path = folder / "replays" / f"{game}.json" if folder is not None else None
        if path is None or not _GAME_ID.fullmatch(game) or not path.is_file():
            return _not_found(f"no replay of game {game!r} in this tournament")
        try:
            page = replay_page(path)
        except ReplayPageError as error:
            return _not_found(str(error))
        return web.Response(text=page, content_type="text/html")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await response.prepare(request)
        spectator = self.spectator
        subscriber = spectator.subscribe()
        quiet = 0.0
        try:
            while not spectator.closed:
                data = spectator.read(subscriber)
                if data:
                    await response.write(data)
                    quiet = 0.0
                elif quiet >= KEEPALIVE_S:
                    await response.write(b": keepalive\n\n")
                    quiet = 0.0
                await asyncio.sleep(FLUSH_S)
                quiet += FLUSH_S
        except ConnectionResetError:  # the page went away
            pass
        finally:
            spectator.unsubscribe(subscriber)
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write_eof()
        return response


def _not_found(text: str) -> web.Response:
    body: Json = {"error": text}
    return web.Response(status=404, text=json.dumps(body), content_type="application/json")
