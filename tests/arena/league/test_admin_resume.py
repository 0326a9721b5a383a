"""A server tournament stopped part-way is resumed on the server, never by `arena run`."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from league_harness import Tournament, league, run
from tournament_harness import ARENA

from arena.protocol.messages import admin as apb


@pytest.mark.slow
def test_admin_start_resume_plays_the_remaining_games(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            for name in tokens:
                lg.launch(name, tokens[name], sessions=2, PERUDO_TEST_DELAY="0.005")
            await lg.wait_connected({"alpha": 2, "beta": 2, "gamma": 2})

            async def stop(game: dict[str, Any]) -> None:
                await lg.admin.StopTournament(
                    apb.StopTournamentRequest(), metadata=lg.metadata, timeout=5
                )

            first = await Tournament.follow(
                lg.start(games=12, jobs=2, move_time=2.0, name="night"), stop
            )
            assert first.finished.status == "interrupted"
            played = len(first.lines())
            assert played < 12

            # Its bots are remote: a local resume would fault every game. Refused.
            local = await asyncio.create_subprocess_exec(
                str(ARENA), "run", "--resume", str(first.folder), stderr=asyncio.subprocess.PIPE
            )
            _, err = await local.communicate()
            assert local.returncode == 1
            assert "arena admin start --resume" in " ".join(err.decode().split())
            assert len(first.lines()) == played

            again = await lg.play(resume="night")
            assert again.finished.status == "finished"
            assert again.folder == first.folder
            lines = again.lines()
            assert Counter(x["game"] for x in lines) == Counter(again.schedule_ids())
            assert all(not x["faults"] for x in lines)
            ids = {line.game for _, line in lg.server.store.lines(["night"])}
            assert ids == set(again.schedule_ids())

    run(body)
