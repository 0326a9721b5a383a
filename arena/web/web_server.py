"""The live page's web server: aiohttp in the referee's own event loop.

It serves the static page, a stream of server-sent events per page (the
spectator's state first, then every change), the state as JSON, each
finished game's HTML replay, and the metrics for Prometheus (`/metrics`,
`arena.metrics`).

The streams cost the referee next to nothing per page: nothing is done for
a page when an event happens. On a tick (TICK_S) the spectator's log encodes
what was said since the last, once, and the one piece of bytes is written to
every page's socket in turn, with no task woken and no await per page; a
page whose socket has not taken what it was sent before (PAGE_BUFFER: a
phone on a bad network) is passed over, and once what it missed has left
the log it is sent the state afresh, so that it is never buffered for
without bound and never holds up the others. A page whose browser takes gzip
(every browser's does) is sent its stream gzipped, the tick's piece
compressed once for all of them (`gzip_stream`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import socket
from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from aiohttp import web

from arena.metrics import CONTENT_TYPE, Metrics
from arena.web import gzip_stream
from arena.web.address import DEFAULT_ADDRESS, WebError, parse_address
from arena.web.gzip_stream import accepts_gzip, deflated
from arena.web.replay_page import ReplayPageError, replay_page
from arena.web.spectator import Spectator
from arena.web.static_files import static_text
from arena.web.stream import Subscriber

TICK_S = (0.1, 0.5)
"""The least and most time between two writes to a page: what happened meanwhile goes in one
write, whatever the pace of play (a decision a millisecond would otherwise be a write per
page each). A socket write is the costly part, some microseconds of the kernel's time on the
referee's clock and a wake-up of the reader, so the tick lengthens with the pages to keep
within WRITES_PER_S: a few pages are sent each bid within a tenth of a second, a hundred
twice a second (a person watching a table sees no difference; the referee does)."""
WRITES_PER_S = 200
PAGE_BUFFER = 1 << 18
"""Bytes a page's socket may hold unsent before the page is passed over until it takes them."""
KEEPALIVE_S = 15.0
"""A comment line this often keeps an idle stream open through proxies."""
KEEPALIVE = b": keepalive\n\n"
_GAME_ID = re.compile(r"[A-Za-z0-9_.-]+")
_TYPES = {".html": "text/html", ".js": "text/javascript", ".css": "text/css"}


class Pages(Protocol):
    """More pages on the same server (a league server's public and authors' pages)."""

    def add_to(self, app: web.Application) -> None: ...


class WebServer:
    def __init__(
        self,
        spectator: Spectator,
        address: str = DEFAULT_ADDRESS,
        metrics: Metrics | None = None,
        pages: Sequence[Pages] = (),
    ) -> None:
        self.spectator = spectator
        self.metrics = metrics
        self.pages = tuple(pages)
        self.host, self.port = parse_address(address)
        self._runner: web.AppRunner | None = None
        self._ticker: asyncio.Task[None] | None = None
        self._pages: dict[Subscriber, _Page] = {}

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
        if self.metrics is not None:
            app.router.add_get("/metrics", self._metrics)
        for more in self.pages:
            more.add_to(app)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=1.0)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        self._runner = runner
        self._ticker = asyncio.ensure_future(self._beat())
        if self.metrics is not None:
            self.metrics.watch_loop()
        return self.url

    async def _beat(self) -> None:
        least, most = TICK_S
        while True:
            await asyncio.sleep(min(most, max(least, len(self._pages) / WRITES_PER_S)))
            self._send()

    def _send(self) -> None:
        """Write to every page what it has not had (one piece of bytes for all of them)."""
        spectator, log = self.spectator, self.spectator.log
        before = log.logged
        spectator.flush()  # even if every page is slow, the games' news is taken in and logged
        head = log.logged
        # Every page that had read it all before this tick is sent just the tick's frame:
        # the same bytes, framed (and compressed) once, and a socket write each.
        tick = _Piece(log.last if head == before + 1 else b"")
        now = asyncio.get_running_loop().time()
        data, piece = b"", _Piece(b"")
        for page in list(self._pages.values()):
            transport, subscriber = page.transport, page.subscriber
            if transport.is_closing():  # the page went away
                page.end()
                continue
            if transport.get_write_buffer_size() > PAGE_BUFFER:
                continue  # slow: passed over until its socket takes what it was sent
            if tick.data and subscriber.cursor == before and subscriber.first is None:
                transport.write(tick.framed(page.gzip))
                subscriber.cursor = head
                page.written = now
                continue
            fresh = spectator.read(subscriber)  # a new page, or one that fell behind
            if not fresh:
                if now - page.written < KEEPALIVE_S:
                    continue
                fresh = KEEPALIVE
            if fresh is not data:  # pages at the same place are handed the same bytes
                data, piece = fresh, _Piece(fresh)
            transport.write(piece.framed(page.gzip))
            page.written = now

    async def stop(self) -> None:
        if self.metrics is not None:
            self.metrics.unwatch_loop()
        self.spectator.close()
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
            self._send()  # the last of it (the final board, the goodbye), then the streams end
        for page in self._pages.values():
            page.end()
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

    async def _metrics(self, request: web.Request) -> web.Response:
        assert self.metrics is not None  # the route is there only with them
        return web.Response(body=self.metrics.exposition(), headers={"Content-Type": CONTENT_TYPE})

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
        gzip = accepts_gzip(request.headers.get("Accept-Encoding", ""))
        if gzip:
            response.headers["Content-Encoding"] = "gzip"
            response.headers["Vary"] = "Accept-Encoding"
        await response.prepare(request)
        spectator = self.spectator
        subscriber = spectator.subscribe()
        try:
            # The state, through aiohttp: the response's headers go with it. From here on
            # the tick writes to the socket itself, in the chunks the response is framed in.
            first = spectator.read(subscriber)
            await response.write(gzip_stream.HEADER + deflated(first) if gzip else first)
            transport = request.transport
            if transport is not None and not spectator.closed:
                page = _Page(transport, subscriber, asyncio.get_running_loop(), gzip)
                self._pages[subscriber] = page
                await page.ended
        except ConnectionResetError:  # the page went away
            pass
        finally:
            self._pages.pop(subscriber, None)
            spectator.unsubscribe(subscriber)
        with contextlib.suppress(ConnectionResetError, RuntimeError):
            await response.write_eof()
        return response


class _Page:
    """A page's open stream: its socket, and where it has read to."""

    __slots__ = ("ended", "gzip", "subscriber", "transport", "written")

    def __init__(
        self,
        transport: asyncio.Transport,
        subscriber: Subscriber,
        loop: asyncio.AbstractEventLoop,
        gzip: bool,
    ) -> None:
        self.transport = transport
        self.subscriber = subscriber
        self.gzip = gzip
        """Whether its stream is gzipped (the page's browser said it takes gzip)."""
        self.ended: asyncio.Future[None] = loop.create_future()
        """Set when the stream is to end: the page went away, or the server is stopping."""
        self.written = loop.time()

    def end(self) -> None:
        if not self.ended.done():
            self.ended.set_result(None)


class _Piece:
    """Bytes for the pages, framed as a chunk, plain or compressed, each at most once a tick
    (most ticks, every page takes the same form)."""

    __slots__ = ("_forms", "data")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self._forms: dict[bool, bytes] = {}

    def framed(self, gzip: bool) -> bytes:
        form = self._forms.get(gzip)
        if form is None:
            form = self._forms[gzip] = _chunk(deflated(self.data) if gzip else self.data)
        return form


def _chunk(data: bytes) -> bytes:
    """`data` as one chunk of the response's chunked transfer encoding (HTTP/1.1)."""
    return b"%x\r\n%b\r\n" % (len(data), data)


def _not_found(text: str) -> web.Response:
    return web.Response(status=404, text=text + "\n", content_type="text/plain")
