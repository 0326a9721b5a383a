"""A league server stopped under a submission: the author is told the server stopped and to
send it again (never a rejection of the bot, never a raw UNAVAILABLE), the upload is not
judged as the author's, and gRPC is left no call to cancel (and log a traceback for)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import grpc
import pytest
from submit_harness import SAMPLES, desk

from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.submissions.archive import pack
from arena.submissions.client import CUT_OFF, interrupted, submit
from arena.submissions.contract import UPLOAD_STOPPED
from arena.submissions.versions import INTERRUPTED, Verdict

LIMIT_S = 60


def _no_grpc_errors(caplog: pytest.LogCaptureFixture) -> None:
    logged = [r for r in caplog.records if r.name.startswith("grpc") and r.levelno >= logging.ERROR]
    assert logged == [], [r.getMessage() for r in logged]


def test_an_upload_half_received_at_a_stop_is_the_servers_fault_not_the_authors(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            token = d.register("alice")
            async with grpc.aio.insecure_channel(f"127.0.0.1:{d.server.port}") as channel:
                call = spb_grpc.SubmissionServiceStub(channel).Submit()  # type: ignore[no-untyped-call]
                header = spb.SubmitHeader(name="alice", token=token, size=100_000, format="tar.gz")
                await call.write(spb.SubmitRequest(header=header))
                assert (await call.read()).WhichOneof("kind") == "ready"
                await call.write(spb.SubmitRequest(chunk=b"x" * 1000))  # then nothing more
                while not any("is coming" in line for line in d.said):
                    await asyncio.sleep(0.01)
                stopping = asyncio.ensure_future(d.server.stop())
                reply = await asyncio.wait_for(call.read(), LIMIT_S)
                await stopping
            assert reply.verdict.reason == UPLOAD_STOPPED
            assert not any("rejected" in line or "cut short:" in line for line in d.said)
            assert any("cut short by the server's stop" in line for line in d.said)
            assert list(d.files.tmp.iterdir()) == []

    caplog.set_level(logging.DEBUG, logger="grpc")
    asyncio.run(body())
    _no_grpc_errors(caplog)


@pytest.mark.slow
def test_a_build_cut_off_by_a_stop_is_interrupted_send_it_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "bot.toml").write_text('name = "slow"\nrun = "python bot.py"\nbuild = "sh b.sh"\n')
    (slow / "bot.py").write_bytes((SAMPLES / "random_bot.py").read_bytes())
    (slow / "b.sh").write_text("echo building\nsleep 600\n")

    async def body() -> Verdict:
        async with desk(tmp_path) as d:
            building = asyncio.Event()

            def show(reply: spb.SubmitReply) -> None:
                if "building" in reply.line.text:
                    building.set()

            sending = asyncio.ensure_future(submit(d.address, d.register("slow"), pack(slow), show))
            await asyncio.wait_for(building.wait(), LIMIT_S)
            await d.server.stop()
            return await asyncio.wait_for(sending, LIMIT_S)

    caplog.set_level(logging.DEBUG, logger="grpc")
    verdict = asyncio.run(body())
    assert verdict.reason == INTERRUPTED and interrupted(verdict)
    _no_grpc_errors(caplog)


def test_only_the_servers_stop_and_a_lost_link_are_interruptions() -> None:
    for reason in (INTERRUPTED, UPLOAD_STOPPED, CUT_OFF):
        assert interrupted(Verdict(False, "a", reason=reason))
    assert not interrupted(Verdict(False, "a", reason="the archive is 3 bytes: cut short"))
    assert not interrupted(Verdict(True, "a", 1))
