"""The season's final, end to end on a real league server: versions submitted through the
real intake, the ladder playing, then `StartFinal`: the latest accepted version of every
entrant plays a duplicate-deal night while the ladder waits and submissions are refused;
the standings carry the batch fit's intervals, `arena verify` passes on the final, and
the ladder and submissions go on after it."""

from __future__ import annotations

import asyncio
import json
import shutil
import time
from pathlib import Path

import grpc
import pytest
from archives import MANIFEST, bot, file, tar_gz
from submit_harness import SAMPLES, Desk, desk

from arena.league.final import FROZEN, is_final
from arena.league.ladder.rounds import is_ladder
from arena.protocol.messages import admin as apb
from arena.submissions.archive import Packed, pack
from arena.submissions.client import submit
from arena.tournament.results.final_record import (
    RECORD_FILE,
    FinalEntrant,
    FinalRecord,
    FinalState,
    write_record,
)
from arena.tournament.results.verify import verify

BOTS = ("random_bot.py", "binomial_bot.py", "strong_bot.py", "bluffer_bot.py")
WAIT_S = 180.0
SEED = bytes.fromhex("f1a1" * 16)


async def _until(check: object, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():  # type: ignore[operator]
        assert loop.time() < deadline, f"no {what} within {WAIT_S:g} s"
        await asyncio.sleep(0.1)


def _ladder_games(d: Desk) -> list[float]:
    """When each ladder game on record started."""
    store = d.server.store
    rounds = {tid for tid, _ in store.tournaments() if is_ladder(tid)}
    return [line.started or 0.0 for _, line in store.lines(rounds)] if rounds else []


def _record(d: Desk) -> dict[str, object] | None:
    path = d.server.config.out / RECORD_FILE
    return json.loads(path.read_text()) if path.is_file() else None  # type: ignore[no-any-return]


def _second_version(tmp: Path, bot: str) -> Path:
    changed = tmp / bot
    shutil.copy(SAMPLES / bot, changed)
    changed.write_text(changed.read_text() + "\n# version two\n")
    return changed


@pytest.mark.slow
def test_a_final_plays_the_latest_versions_while_the_ladder_waits(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            tokens = {}
            for bot in BOTS:
                tokens[bot] = d.register(pack(SAMPLES / bot).name)
                assert (await d.send_bot(SAMPLES / bot, tokens[bot])).accepted
            # random-bot's author sends a second version, then plays the first on the ladder:
            # the final plays the latest all the same.
            random_name = pack(SAMPLES / "random_bot.py").name
            second = await d.send_bot(_second_version(tmp_path, "random_bot.py"), tokens[BOTS[0]])
            assert second.accepted and second.version == 2, second
            d.server.versions.choose(random_name, 1)
            await d.admin.Ladder(
                apb.LadderRequest(action=apb.LadderRequest.ACTION_START), metadata=d.metadata
            )
            await _until(lambda: len(_ladder_games(d)) >= 3, "ladder games")

            night = apb.StartTournamentRequest(seed=SEED, games=24, table_size=2, jobs=2)
            stream = d.admin.StartFinal(apb.StartFinalRequest(night=night), metadata=d.metadata)
            events = asyncio.ensure_future(_events(stream))
            await _until(lambda: (_record(d) or {}).get("state") == "playing", "final under way")
            assert d.server.ladder.paused  # its rounds finished; it waits for the final
            began = time.time()

            late = await d.send_bot(
                _second_version(tmp_path, "bluffer_bot.py"), tokens["bluffer_bot.py"]
            )
            assert not late.accepted and late.reason == FROZEN, late
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert status.submissions_closed and status.state == "playing"

            kinds = await asyncio.wait_for(events, WAIT_S)
            assert kinds[-1] == "finished", kinds
            ended = time.time()
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert status.state == "finished" and not status.submissions_closed, status
            versions = {e.name: e.version for e in status.entrants}
            assert versions == {pack(SAMPLES / b).name: 1 for b in BOTS} | {random_name: 2}
            for entrant in status.entrants:  # each with the batch fit's interval
                assert entrant.HasField("low") and entrant.low <= entrant.strength <= entrant.high
                assert entrant.games > 0
            assert status.HasField("level")
            folder = d.server.config.out / status.tournament
            assert is_final(status.tournament)
            info = json.loads((folder / "tournament.json").read_text())
            assert info["deals"] == "disjoint"
            pinned = {n: b["version"]["number"] for n, b in info["bots"].items()}
            assert pinned == versions
            assert verify(folder).ok, verify(folder).problems
            assert status.tournament in {tid for tid, _ in d.server.store.tournaments()}

            # The ladder played no game while the final did, and plays again after it.
            assert not [t for t in _ladder_games(d) if began <= t <= ended]
            await _until(lambda: any(t > ended for t in _ladder_games(d)), "ladder after")
            again = await d.send_bot(
                _second_version(tmp_path, "bluffer_bot.py"), tokens["bluffer_bot.py"]
            )
            assert again.accepted, again
            await _top_two(d, night, {random_name: 2, "bluffer-bot": 2})

    asyncio.run(body())


async def _top_two(d: Desk, night: apb.StartTournamentRequest, seconds: dict[str, int]) -> None:
    """A final of the ladder's best two, each by its latest version (`seconds`: the entrants
    at version 2): the board is read while the final holds the ladder."""
    top = apb.StartFinalRequest(night=night, top=2)
    events = asyncio.ensure_future(_events(d.admin.StartFinal(top, metadata=d.metadata)))
    await _until(lambda: (_record(d) or {}).get("state") == "playing", "the second final")
    board = [row.bot for row in d.server.ladder.status().standings]
    assert (await asyncio.wait_for(events, WAIT_S))[-1] == "finished"
    status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
    played = {e.name: e.version for e in status.entrants}
    assert played == {name: seconds.get(name, 1) for name in board[:2]}


async def _events(stream: object) -> list[str]:
    return [event.WhichOneof("kind") async for event in stream]  # type: ignore[attr-defined]


def _slow_bot(name: str) -> Packed:
    """A bot whose build takes 3 s: a submission still under way when the final begins."""
    manifest = MANIFEST.replace(b"alice", name.encode()) + b'build = "sh build.sh"\n'
    return Packed(name, tar_gz(bot(file("build.sh", b"sleep 3\n"), manifest=manifest)), 3, ())


@pytest.mark.slow
def test_a_submission_under_way_at_the_close_is_judged_and_plays_the_final(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            for bot_file in BOTS[:2]:
                assert (await d.send_bot(SAMPLES / bot_file)).accepted
            building = asyncio.Event()
            under_way = asyncio.ensure_future(
                submit(d.address, d.register("slow"), _slow_bot("slow"), lambda _: building.set())
            )
            await asyncio.wait_for(building.wait(), WAIT_S)
            night = apb.StartTournamentRequest(seed=SEED, games=1, table_size=2, jobs=2)
            stream = d.admin.StartFinal(apb.StartFinalRequest(night=night), metadata=d.metadata)
            events = asyncio.ensure_future(_events(stream))
            await _until(lambda: d.server.final.closed, "submissions closed")
            late = await d.send(_slow_bot("late"), d.register("late"))
            assert late.reason == FROZEN, late
            assert not under_way.done()  # closed while it was being built
            assert (await asyncio.wait_for(under_way, WAIT_S)).accepted
            kinds = await asyncio.wait_for(events, WAIT_S)
            assert kinds[-1] == "finished", kinds
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert "slow" in {e.name for e in status.entrants}
            assert "late" not in {e.name for e in status.entrants}

    asyncio.run(body())


def test_a_final_refused_leaves_submissions_open(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            d.register("alice")
            final = d.admin.StartFinal(apb.StartFinalRequest(), metadata=d.metadata)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await _events(final)
            assert refused.value.code() is grpc.StatusCode.FAILED_PRECONDITION
            assert "at least two entrants with an accepted version" in str(refused.value.details())
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert not status.submissions_closed and status.state == ""
            assert not (d.server.config.out / RECORD_FILE).exists()

    asyncio.run(body())


def test_a_final_cut_off_by_a_kill_is_said_stopped_with_the_way_on(tmp_path: Path) -> None:
    out = tmp_path / "results"
    entrants = (FinalEntrant("alice", 1, "s"), FinalEntrant("bob", 2, "t"))
    write_record(out, FinalRecord(FinalState.PLAYING, 1000.0, "final-season-1", entrants))

    async def body() -> None:
        async with desk(tmp_path) as d:
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert status.state == "stopped" and not status.submissions_closed
            assert "`arena admin final start --resume final-season-1` plays on" in status.outcome
            assert [(e.name, e.version) for e in status.entrants] == [("alice", 1), ("bob", 2)]

    asyncio.run(body())


@pytest.mark.slow
def test_a_final_stopped_while_it_waits_for_a_build_is_not_begun(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            for bot_file in BOTS[:2]:
                assert (await d.send_bot(SAMPLES / bot_file)).accepted
            building = asyncio.Event()
            under_way = asyncio.ensure_future(
                submit(d.address, d.register("slow"), _slow_bot("slow"), lambda _: building.set())
            )
            await asyncio.wait_for(building.wait(), WAIT_S)
            stream = d.admin.StartFinal(apb.StartFinalRequest(), metadata=d.metadata)
            events = asyncio.ensure_future(_events(stream))
            await _until(lambda: d.server.final.closed, "submissions closed")
            status = await d.admin.GetStatus(apb.GetStatusRequest(), metadata=d.metadata)
            assert status.tournament == "starting"
            stop = apb.StopTournamentRequest()
            assert (await d.admin.StopTournament(stop, metadata=d.metadata)).stopping
            assert (await asyncio.wait_for(under_way, WAIT_S)).accepted
            assert (await asyncio.wait_for(events, WAIT_S)) == ["error"]
            final = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert final.state == "stopped" and not final.submissions_closed
            assert final.outcome == "stopped before its first game, as asked"
            assert not (d.server.config.out / final.tournament).exists()

    asyncio.run(body())


@pytest.mark.slow
def test_a_final_stopped_in_play_is_resumed_with_its_field(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            for bot_file in BOTS[:3]:
                assert (await d.send_bot(SAMPLES / bot_file)).accepted
            night = apb.StartTournamentRequest(seed=SEED, games=60, table_size=2, jobs=1)
            stream = d.admin.StartFinal(apb.StartFinalRequest(night=night), metadata=d.metadata)
            events = asyncio.ensure_future(_events(stream))
            games = d.server.store.tournaments
            await _until(lambda: any(is_final(t) and n for t, n in games()), "a final's game")
            stop = apb.StopTournamentRequest()
            assert (await d.admin.StopTournament(stop, metadata=d.metadata)).stopping
            assert (await asyncio.wait_for(events, WAIT_S))[-1] == "finished"
            stopped = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert stopped.state == "stopped" and not stopped.submissions_closed
            # A version sent between the stop and the resume does not join the field.
            changed = _second_version(tmp_path, BOTS[0])
            assert (await d.send_bot(changed, d.register(pack(changed).name))).accepted

            again = apb.StartTournamentRequest(resume=stopped.tournament)
            stream = d.admin.StartFinal(apb.StartFinalRequest(night=again), metadata=d.metadata)
            assert (await asyncio.wait_for(_events(stream), WAIT_S))[-1] == "finished"
            status = await d.admin.GetFinal(apb.GetFinalRequest(), metadata=d.metadata)
            assert status.state == "finished" and status.tournament == stopped.tournament
            field = {(e.name, e.version) for e in status.entrants}
            assert field == {(e.name, e.version) for e in stopped.entrants}
            assert all(e.HasField("low") for e in status.entrants)
            assert verify(d.server.config.out / status.tournament).ok

    asyncio.run(body())
