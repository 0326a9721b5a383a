"""`arena admin status` lists the sessions that are there: a bot whose process is gone leaves
the lobby with every session it had, idle or in the middle of a game."""

from __future__ import annotations

import signal
from pathlib import Path

from league_harness import eventually, gamma_killed_mid_game, league, run

GONE_WITHIN_S = 30.0
"""A generous limit: the stream of a killed process ends as soon as its socket is closed."""


def test_a_killed_idle_bot_leaves_the_status_with_all_its_sessions(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta")
            lg.launch("alpha", tokens["alpha"], sessions=2)
            victim = lg.launch("beta", tokens["beta"], sessions=3)
            await lg.wait_connected({"alpha": 2, "beta": 3})
            victim.process.send_signal(signal.SIGKILL)
            assert await victim.exited(10) == -signal.SIGKILL

            async def gone() -> bool:
                return await lg.connected() == {"alpha": 2}

            await eventually(gone, "status no longer lists beta", GONE_WITHIN_S)
            assert {s.name for s in lg.server.lobby.all_sessions()} == {"alpha"}

    run(body)


def test_a_bot_killed_mid_game_leaves_the_status_while_the_tournament_plays_on(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with league(tmp_path, reconnect_grace=1.0) as lg:
            follow = await gamma_killed_mid_game(lg, tmp_path)

            async def gone() -> bool:
                return "gamma" not in await lg.connected()

            await eventually(gone, "status no longer lists gamma", GONE_WITHIN_S)
            night = await follow
            assert night.finished.status == "finished"
            assert "gamma" not in await lg.connected()
            assert {s.name for s in lg.server.lobby.all_sessions()} <= {"alpha", "beta"}

    run(body)
