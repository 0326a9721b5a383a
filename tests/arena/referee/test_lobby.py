"""The lobby forgets a session whose stream ended, even when the end comes as a cancellation
while someone else holds the lobby's lock."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from arena.referee.auth import TokenBook
from arena.referee.lobby import Lobby
from arena.referee.session import Session


def test_a_removal_cancelled_while_it_waits_for_the_lock_still_forgets_the_session() -> None:
    async def body() -> None:
        lobby = Lobby(TokenBook())
        context: Any = None  # never spoken to: the lobby only files sessions
        session = Session("alpha", "s1", context)
        lobby._held["alpha"] += 1  # what `admit` does for an admitted Hello
        await lobby.add(session)
        assert lobby.connected() == {"alpha": 1}
        async with lobby._changed:  # another task is in the lobby right now
            removal = asyncio.ensure_future(lobby.remove(session))
            await asyncio.sleep(0)  # the removal waits for the lock
            removal.cancel()  # and the call's end cancels it there
            with contextlib.suppress(asyncio.CancelledError):
                await removal
        assert lobby.connected() == {}
        assert not lobby.has(session)

    asyncio.run(body())


def test_a_follower_cancelled_in_the_turn_a_change_came_is_cancelled() -> None:
    """A stop cancels the tasks that follow the lobby (`changed` in a loop). A change that
    came in the same turn of the loop must not swallow the cancel: on Python 3.11,
    `asyncio.wait_for` returned the change and dropped it, and a league server ignored its
    SIGTERM for good."""

    async def body() -> int:
        lost = 0
        for _ in range(20):
            lobby = Lobby(TokenBook())

            async def follow(lobby: Lobby = lobby) -> None:
                while True:
                    await lobby.changed(1.0)

            task = asyncio.ensure_future(follow())
            await asyncio.sleep(0)  # it waits now
            async with lobby._changed:
                lobby._changed.notify_all()  # a change...
            await asyncio.sleep(0)
            task.cancel()  # ...and the stop, in the same turn of the loop
            done, _ = await asyncio.wait({task}, timeout=2)
            if not done:
                lost += 1
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        return lost

    assert asyncio.run(body()) == 0
