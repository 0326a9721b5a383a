"""The lobby forgets a session whose stream ended, even when the end comes as a cancellation
while someone else holds the lobby's lock; and remembers why the referee closed a bot's last
session, for its absence to say."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import grpc
from league_harness import eventually
from referee_harness import SEED, Arena, hello, reply, run

from arena.league.narrator import Arrivals
from arena.league.screen import Kind, ScreenEvent
from arena.protocol.faults import FaultKind
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameSpec
from arena.referee.service.auth import TokenBook
from arena.referee.service.lobby import Lobby
from arena.referee.session.session import MAX_STRAY_MESSAGES, Session
from arena.tournament.play.tables import LobbyTables
from engine import Ruleset


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


def test_a_session_closed_for_a_flood_before_any_game_is_recorded_as_such(live: Arena) -> None:
    """Issue 35: a bot whose only session the referee closed for flooding it, before any
    game, was recorded as any bot that never came ("no session open (not connected)"),
    on the screen and in its games' faults. Its absence now says why."""

    async def main() -> None:
        async with live.serving(goodbye_grace=0.3):
            told: list[ScreenEvent] = []
            following = asyncio.ensure_future(Arrivals(live.lobby, told.append).follow())
            await live.launch("kit_bot", ["calm"])
            flooder = live.raw()
            await flooder.send(hello("flooder", live.token("flooder")))
            welcome = await flooder.read()
            assert welcome is not None and welcome.WhichOneof("kind") == "welcome"
            await live.wait_connected(["flooder"])
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                for _ in range(MAX_STRAY_MESSAGES + 5):
                    await flooder.send(reply(1))
            status, details, _ = await flooder.status()
            assert status == grpc.StatusCode.INVALID_ARGUMENT
            assert details.startswith("too many unexpected messages")
            assert live.lobby.absence("nobody") == "not connected"

            tables = LobbyTables(live.lobby, SEED, TimeControl(0.5, margin=0.5))
            spec = GameSpec("g1", ("flooder", "calm"), "g1", Ruleset())
            record = await asyncio.wait_for(tables.play(spec, None), 30)
            [fault] = record.faults
            assert (fault.bot, fault.fault.kind) == ("flooder", FaultKind.DISCONNECT)
            assert fault.fault.detail.startswith(
                "flooder has no session open (the referee closed its last session: "
                "too many unexpected messages"
            ), fault.fault.detail

            departed = [Kind.DISCONNECT]
            await eventually(lambda: any(e.kind in departed for e in told), "its departure", 10)
            [gone] = [e for e in told if e.kind is Kind.DISCONNECT]
            assert gone.text.startswith("flooder left (no session open: the referee closed")
            assert "too many unexpected messages" in gone.fields["why"]

            again = live.raw()  # back, and gone of its own accord: nothing held against it
            await again.send(hello("flooder", live.token("flooder")))
            assert (await again.read()) is not None
            await live.wait_connected(["flooder"])
            await again.close()
            await eventually(lambda: "flooder" not in live.lobby.connected(), "it left", 10)
            assert live.lobby.absence("flooder") == "not connected"
            following.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await following

    run(main())
