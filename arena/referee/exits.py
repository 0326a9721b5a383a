"""How the referee tells a crash from a disconnect: the bot process's exit status."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable

ExitProbe = Callable[[float], Awaitable[int | None]]
"""The bot process's exit status if it ends within the given seconds, else None."""


def exit_probe(process: asyncio.subprocess.Process) -> ExitProbe:
    """The `ExitProbe` of a bot process the arena started."""

    async def exit_status(within: float) -> int | None:
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(process.wait()), within)
        return process.returncode

    return exit_status
