"""A submitted version that passes its checks and then crashes on the ladder sits out, seated
at no table while it does; the others go on playing, none of them charged a fault."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from submit_harness import SAMPLES, desk

from arena.league.ladder.rounds import is_ladder
from arena.protocol.messages import admin as apb
from arena.tournament.results.resuming import read_info

BOTS = ("random_bot.py", "binomial_bot.py", "strong_bot.py")
WAIT_S = 180.0
CRASHY = '''\
"""Plays check-bot's games (every id starts "check-") and kills its bridge at any other."""
import json, os, signal, sys

for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "request":
        continue
    if not message.get("game_id", "").startswith("check-"):
        os.kill(os.getppid(), signal.SIGKILL)
    if message.get("dudo_allowed"):
        answer = {"action": "dudo"}
    elif message.get("kind") == "turn":
        face = next(f for f, n in enumerate(message["min_count"], start=1) if n)
        answer = {"action": "bid", "count": message["min_count"][face - 1], "face": face}
    else:
        answer = {"action": "pass"}
    print(json.dumps({"request_id": message["request_id"], **answer}), flush=True)
'''


def _crashy(folder: Path) -> Path:
    folder.mkdir()
    (folder / "crashy.py").write_text(CRASHY)
    (folder / "bot.toml").write_text(
        'name = "crashy"\nrun = "python -m arena.kit.bridge -- python crashy.py"\n'
    )
    return folder


@pytest.mark.slow
def test_a_version_that_crashes_on_the_ladder_sits_out_and_the_others_play_on(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            for bot in BOTS:
                assert (await d.send_bot(SAMPLES / bot)).accepted
            verdict = await d.send_bot(_crashy(tmp_path / "crashy"))
            assert verdict.accepted, verdict  # its checks all pass
            start = apb.LadderRequest(action=apb.LadderRequest.ACTION_START)
            await d.admin.Ladder(start, metadata=d.metadata)
            loop = asyncio.get_running_loop()
            deadline = loop.time() + WAIT_S
            while not (ladder := d.server.ladder).sideline.now():
                assert loop.time() < deadline, "crashy never sat out"
                await asyncio.sleep(0.1)
            [out] = ladder.sideline.now()
            assert out.name == "crashy" and "crash" in out.why, out

            # While it sits out, no table seats it, and the others go on.
            def rounds() -> int:
                return len(list(d.server.config.out.glob("ladder-*")))

            rounds_then = rounds()
            while rounds() < rounds_then + 3:
                assert ladder.sideline.now(), "it was back before three more rounds"
                assert all("crashy" not in seats for seats in ladder.tables.values())
                assert loop.time() < deadline, "the others did not play on"
                await asyncio.sleep(0.05)
            stop = apb.LadderRequest(action=apb.LadderRequest.ACTION_STOP)
            status = await d.admin.Ladder(stop, metadata=d.metadata)
            assert [s.name for s in status.sitting_out] == ["crashy"]
            # Nobody but crashy was charged a fault in any ladder game.
            store = d.server.store
            rounds = [tid for tid, _ in store.tournaments() if is_ladder(tid)]
            lines = [line for _, line in store.lines(rounds)]
            assert lines and {f.bot for line in lines for f in line.faults} <= {"crashy"}
            crashed = [
                r for r in rounds if "crashy" in (read_info(d.server.config.out / r).entrants or ())
            ]
            assert crashed

    asyncio.run(body())
