"""A far-away link on loopback: a TCP proxy that holds every chunk a while, each way.

A bot that dials the proxy instead of the referee is, to the referee, a bot
across a continent: each chunk it sends arrives `delay` seconds later, and so
does each chunk sent to it. Chunks in flight do not wait for one another (a
long link is slow, not narrow), and their order is kept.
"""

from __future__ import annotations

import asyncio
import contextlib


class LagProxy:
    """Listens on 127.0.0.1 (port 0) and forwards each connection to `target_port`."""

    def __init__(self, target_port: int, delay: float) -> None:
        self.target_port = target_port
        self.delay = delay
        self.port = 0
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(asyncio.CancelledError, OSError):
                await task

    async def __aenter__(self) -> LagProxy:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        for source, sink in ((reader, up_writer), (up_reader, writer)):
            task = asyncio.ensure_future(self._pipe(source, sink))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        """Read as chunks come; write each `delay` after it was read, in order."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                if not chunk:
                    break
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                sink.write(chunk)
                await sink.drain()
            with contextlib.suppress(OSError):
                sink.close()

        delivering = asyncio.ensure_future(deliver())
        try:
            while chunk := await source.read(65536):
                queue.put_nowait((loop.time() + self.delay, chunk))
            queue.put_nowait((loop.time() + self.delay, b""))
            await delivering
        except OSError:  # a side hung up: the link is down
            delivering.cancel()
            with contextlib.suppress(OSError):
                sink.close()
        except asyncio.CancelledError:
            delivering.cancel()
            with contextlib.suppress(OSError):
                sink.close()
            raise
