"""Refusals over the wire: hostile archives, tokens, quotas and the size cap, each refused with
the limit named and nothing kept (no row, no version folder, nothing left in tmp/)."""

from __future__ import annotations

import asyncio
import os
import tarfile
import time
from pathlib import Path

import grpc
import pytest
from archives import MANIFEST, bomb, bot, file, special, tar_gz
from submit_harness import desk

from arena.submissions.archive import Packed
from arena.submissions.limits import SubmissionLimits
from arena.submissions.versions import Verdict

NOTHING = (0, [], [])


def _packed(data: bytes, name: str = "alice") -> Packed:
    return Packed(name, data, 2, ())


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (tar_gz(bot(file("/etc/cron.d/x", b"x"))), "'/etc/cron.d/x', an absolute path"),
        (tar_gz(bot(file("../../x", b"x"))), "a path with '..'"),
        (tar_gz(bot(special("l", tarfile.SYMTYPE, "../../.."))), "a symbolic link"),
        (tar_gz(bot(special("d", tarfile.CHRTYPE))), "a character device"),
        (tar_gz(bot(special("p", tarfile.FIFOTYPE))), "a named pipe"),
        (tar_gz(bot(*(file(f"f{i}") for i in range(12)))), "more than 10 files and folders"),
        (bomb(40 * 1024 * 1024), "expands to more than 100 times"),
        (tar_gz(bot(manifest=MANIFEST + b"sudo = true\n")), "unknown key 'sudo'"),
        (tar_gz(bot(manifest=b'name = "alice"\nrun = "python \'x"\n')), "'run' cannot be split"),
        (tar_gz(bot(manifest=b'name = "eve"\nrun = "python bot.py"\n')), "names the bot 'eve'"),
        (b"\x1f\x8b" + b"garbage" * 10, "not a gzipped tar"),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_a_hostile_archive_is_refused_with_nothing_kept(
    tmp_path: Path, data: bytes, said: str
) -> None:
    async def body() -> None:
        async with desk(tmp_path, SubmissionLimits(max_files=10)) as d:
            verdict = await d.send(_packed(data), d.register("alice"))
            assert not verdict.accepted and said in verdict.reason, verdict
            assert d.stored() == NOTHING
            assert d.said[-1] == f"alice: rejected: {verdict.reason}"

    asyncio.run(body())


def test_an_unknown_or_revoked_token_is_refused(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            data = tar_gz(bot())
            nobody = await d.send(_packed(data), "no-such-token")
            assert nobody.reason.startswith("the league server knows no entrant 'alice'")
            token = d.register("alice")
            d.register("bob")
            assert "knows no entrant 'bob'" in (await d.send(_packed(data, "bob"), token)).reason
            d.server.store.revoke_entrant("alice")
            revoked = await d.send(_packed(data), token)
            assert "revoked" in revoked.reason and not revoked.accepted
            assert d.stored() == NOTHING

    asyncio.run(body())


def test_the_size_cap_is_named_before_a_byte_is_sent(tmp_path: Path) -> None:
    async def body() -> None:
        limits = SubmissionLimits(max_bytes=1024 * 1024)
        async with desk(tmp_path, limits) as d:
            data = tar_gz(bot(file("noise", os.urandom(2 * 1024 * 1024))))  # incompressible
            verdict = await d.send(_packed(data), d.register("alice"))
            assert verdict.reason == (
                f"the archive is {len(data) / 1024 / 1024:.1f} MiB, over this server's cap of "
                "1 MiB (--submission-max-mb)"
            )
            assert d.stored() == NOTHING

    asyncio.run(body())


def test_a_header_that_lies_about_the_size_is_caught(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            token = d.register("alice")
            data = tar_gz(bot())
            from arena.protocol.messages import submission as spb
            from arena.protocol.messages import submission_grpc as spb_grpc

            async with d.address.channel() as channel:
                call = spb_grpc.SubmissionServiceStub(channel).Submit()  # type: ignore[no-untyped-call]
                header = spb.SubmitHeader(name="alice", token=token, size=10, format="tar.gz")
                await call.write(spb.SubmitRequest(header=header))
                assert (await call.read()).WhichOneof("kind") == "ready"
                await call.write(spb.SubmitRequest(chunk=data))
                await call.done_writing()
                replies = []
                while (reply := await call.read()) is not grpc.aio.EOF:  # type: ignore[attr-defined]
                    replies.append(reply)
            assert replies[-1].verdict.reason == "the archive is longer than the 10 bytes said"
            assert d.stored() == NOTHING

    asyncio.run(body())


def test_submissions_an_hour_per_author(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path, SubmissionLimits(per_hour=2)) as d:
            token = d.register("alice")
            bad = _packed(tar_gz(bot(file("/x"))))
            for _ in range(2):  # refused at intake, but counted: they cost the server work
                assert "absolute path" in (await d.send(bad, token)).reason
            third = await d.send(_packed(tar_gz(bot())), token)
            assert third.reason == (
                "at most 2 submissions an hour per author (--submissions-per-hour): "
                "alice has sent 2 in the last hour"
            )
            d.register("bob")  # another author is not held up by alice's quota
            assert (
                "absolute path"
                in (await d.send(_packed(tar_gz(bot(file("/x"))), "bob"), d.register("bob"))).reason
            )

    asyncio.run(body())


def test_one_build_at_a_time_per_author(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            token = d.register("alice")
            # The build runs until the test lets it end (a file beside it), not for a guess
            # of how long the second submission takes to be refused.
            slow = tar_gz(
                bot(
                    file("build.sh", b"echo started\nwhile [ ! -e go ]; do sleep 0.05; done\n"),
                    manifest=MANIFEST + b'build = "sh build.sh"\n',
                )
            )
            started = asyncio.Event()
            seen: list = []  # type: ignore[type-arg]

            def show(reply: object) -> None:
                seen.append(reply)
                started.set()

            from arena.submissions.client import submit

            first = asyncio.ensure_future(submit(d.address, token, _packed(slow), show))
            await asyncio.wait_for(started.wait(), 30)
            refused = await d.send(_packed(tar_gz(bot())), token)
            assert refused.reason.startswith(
                "one build at a time per author: alice's submission sent at "
            )
            assert refused.reason.endswith(
                "is still being taken in, built or checked; wait for its verdict"
            )
            for script in tmp_path.rglob("build.sh"):  # the build's own copy: let it end
                (script.parent / "go").touch()
            done: Verdict = await asyncio.wait_for(first, 60)
            assert done.accepted, done
            assert (await d.send(_packed(tar_gz(bot(file("more.py")))), token)).version == 2

    asyncio.run(body())


def test_the_server_says_a_line_per_submission_and_verdict(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            before = time.time()
            verdict = await d.send(_packed(tar_gz(bot())), d.register("alice"))
            assert verdict.accepted and time.time() >= before
            coming = [line for line in d.said if line.startswith("alice: a submission of")]
            assert len(coming) == 1 and coming[0].endswith("KiB is coming")
            assert d.said[-1] == "alice: accepted as version 1 of alice"

    asyncio.run(body())
