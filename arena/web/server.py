"""The live page's web server: aiohttp in the referee's own event loop.

It serves the static page, a stream of server-sent events per page (the
spectator's state first, then every change), the state as JSON, and each
finished game's HTML replay. A page's pace is its own: its stream reads the
spectator's one log of frames now and then and sends what is new in one
write, so however fast the games go the pages together cost the referee at
most `WRITES_PER_S` writes a second, and one on a bad network holds up only
its own stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from pathlib import Path

from aiohttp import web

from arena.web.address import DEFAULT_ADDRESS, WebError, parse_address
from arena.web.replay_page import ReplayPageError, replay_page
from arena.web.spectator import Spectator
from arena.web.static_files import static_text

WRITES_PER_S = 100
"""The writes a second all the pages' streams share: each sends what happened since its
last write in one, so pages cost the referee by this, not by the pace of play (a decision
every millisecond would otherwise be a write per page each). A socket write to a page is
the costly part (tens of microseconds of the kernel's time, on the referee's clock)."""
FLUSH_S = (0.1, 1.0)
"""The least and most time between two writes to one page: ten pages or fewer are sent each
bid within a tenth of a second, a hundred pages every second, and a crowd no less often."""
KEEPALIVE_S = 15.0
"""A comment line this often keeps an idle stream open through proxies."""
_GAME_ID = re.compile(r"[A-Za-z0-9_.-]+")
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


class WebServer:
    def __init__(self, spectator: Spectator, address: str = DEFAULT_ADDRESS) -> None:
        self.spectator = spectator
        self.host, self.port = parse_address(address)
        self._runner: web.AppRunner | None = None
        self._tick: asyncio.Future[None] | None = None
        self._ticker: asyncio.Task[None] | None = None

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
        self._tick = asyncio.get_running_loop().create_future()
        self._ticker = asyncio.ensure_future(self._beat())
        return self.url

    async def _beat(self) -> None:
        """Wake every page's stream at once, so that a hundred cost one wake-up, not a hundred."""
        loop = asyncio.get_running_loop()
        while True:
            watchers = self.spectator.watchers
            await asyncio.sleep(min(FLUSH_S[1], max(FLUSH_S[0], watchers / WRITES_PER_S)))
            tick, self._tick = self._tick, loop.create_future()
            if tick is not None:
                tick.set_result(None)

    async def stop(self) -> None:
        self.spectator.close()
        if self._ticker is not None:
            self._ticker.cancel()
        if self._tick is not None and not self._tick.done():
            self._tick.set_result(None)  # every stream wakes, sees the close, and ends
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
        if not self.spectator.replays_open:
            return _not_found(
                f"the replay of {game} is shown once the tournament ends: its games share "
                f"deals (--deals disjoint), and a bot yet to play this deal must not be shown it"
            )
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
        loop = asyncio.get_running_loop()
        written = loop.time()
        try:
            while not spectator.closed:
                data = spectator.read(subscriber)
                if not data and loop.time() - written >= KEEPALIVE_S:
                    data = b": keepalive\n\n"
                if data:
                    await response.write(data)
                    written = loop.time()
                if self._tick is None:
                    break
                await asyncio.shield(self._tick)
        except ConnectionResetError:  # the page went away
            pass
        finally:
            spectator.unsubscribe(subscriber)
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write_eof()
        return response


def _not_found(text: str) -> web.Response:
    return web.Response(status=404, text=text + "\n", content_type="text/plain")
