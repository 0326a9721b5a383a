"""The admin service: a wait for a disconnected bot is a real countdown, told in the status too;
the start request carries the fairness options of `arena run`.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import time
from pathlib import Path

import grpc
import pytest
from league_harness import STEADY, eventually, league, run
from referee_harness import RawClient, hello

from arena.bots.run.capacity import usable_cores
from arena.cli.main import main


@pytest.mark.slow
def test_the_grace_counts_down_from_when_the_bot_left_and_shows_in_the_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    grace = 6.0
    monkeypatch.delenv("PERUDO_ADMIN_TOKEN", raising=False)

    async def body() -> None:
        async with league(tmp_path, reconnect_grace=grace) as lg:
            tokens = lg.register("alpha", "beta", "gamma", "visitor")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            leaver = lg.launch("gamma", tokens["gamma"], PERUDO_TEST_QUIT_AFTER="1")
            await lg.wait_connected({"alpha": 1, "beta": 1, "gamma": 1})
            follow = asyncio.ensure_future(
                lg.play(games=6, table_size=2, jobs=1, move_time=2.0, name="wait")
            )
            assert await leaver.exited(15) == 0

            async def waiting() -> bool:
                return bool((await lg.status()).waiting)

            await eventually(waiting, "the status says games wait for gamma", 15)
            # The referee reads its clock somewhere between `asked` and `seen`: bounds that
            # hold however slowly this machine answers.
            asked = time.monotonic()
            [first] = (await lg.status()).waiting
            seen = time.monotonic()
            assert first.name == "gamma" and 0 < first.grace_left <= grace
            # `arena admin status` says it too, from another thread as from another terminal.
            admin = ["--admin", f"127.0.0.1:{lg.server.admin_port}"]
            admin += ["--league", str(lg.server.config.league)]
            capsys.readouterr()
            assert await asyncio.to_thread(main, ["admin", "status", *admin]) == 0
            said = re.search(
                r"waiting for gamma \(disconnected\), (\d+) s of grace left",
                capsys.readouterr().out,
            )
            assert said is not None and int(said[1]) <= round(first.grace_left)
            # A lobby that keeps changing (a visitor coming and going) used to restart the
            # grace at each change, so the games waited for ever: now the grace runs out.
            churned = 0
            while not follow.done():
                visitor = RawClient(lg.server.port)
                await visitor.send(hello("visitor", tokens["visitor"]))
                await visitor.read()
                await visitor.close()
                churned += 1
                again = time.monotonic()
                status = await lg.status()
                left = {w.name: w.grace_left for w in status.waiting}
                if "gamma" in left:
                    assert left["gamma"] <= max(0.0, first.grace_left - (again - seen)) + 1e-6
                assert time.monotonic() - seen < 30, "the grace never ran out"
                await asyncio.sleep(0.01)  # a change more often than the grace's end could wait
            night = await follow
            assert churned > 1
            assert time.monotonic() - asked >= first.grace_left - 1e-6
            notes = night.of("note")
            assert notes[0].startswith("waiting for gamma (disconnected), ")
            assert notes[-1].endswith(f"gamma did not come back within {grace:.0f} s")
            assert night.info()["dropped"]
            assert not (await lg.status()).waiting

    run(body)


def test_start_refuses_more_jobs_than_cores_unless_forced(tmp_path: Path) -> None:
    too_many = usable_cores() + 1

    async def body() -> None:
        async with league(tmp_path) as lg:
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await lg.play(games=6, jobs=too_many, name="many")
            assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert f"--jobs {too_many} is more games at once" in (refused.value.details() or "")
            assert "--force-jobs" in (refused.value.details() or "")
            # Forced, it gets past the cap to the next check (no bots are connected).
            with pytest.raises(grpc.aio.AioRpcError) as forced:
                await lg.play(games=6, jobs=too_many, force_jobs=True, name="many")
            assert "fewer than two bots can play" in (forced.value.details() or "")
            with pytest.raises(grpc.aio.AioRpcError) as bad:
                await lg.play(games=6, jobs=1, time_margin=float("nan"), name="nan")
            assert (bad.value.details() or "").startswith("--time-margin: nan is out of range")
            assert not (tmp_path / "results" / "many").exists()

    run(body)


def test_the_time_margin_reaches_the_tournament(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            await lg.wait_connected({"alpha": 1, "beta": 1})
            night = await lg.play(games=2, jobs=1, move_time=2.0, time_margin=0.125, name="m")
            assert night.info()["time_margin"] == 0.125
            default = await lg.play(games=2, jobs=1, move_time=2.0, name="d")
            assert default.info()["time_margin"] == lg.server.config.defaults.time_margin

    run(body)


def test_a_local_bots_build_is_sent_down_the_admin_stream_as_it_runs(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    builder = bots / "builder"
    builder.mkdir(parents=True)
    shutil.copy(STEADY, builder / "bot.py")
    (builder / "bot.toml").write_text('name = "builder"\nrun = "python bot.py"\nbuild = "true"\n')
    shutil.copy(STEADY, bots / "plain.py")

    async def body() -> None:
        async with league(tmp_path) as lg:
            night = await lg.play(
                games=2, jobs=1, move_time=2.0, bots_dir=str(bots), sandbox="off", name="built"
            )
            assert night.finished.status == "finished"
            assert night.of("build") == [("builder", True), ("builder", False)]
            kinds = [kind for kind, _ in night.events]
            assert kinds.index("build") < kinds.index("started")

    run(body)
