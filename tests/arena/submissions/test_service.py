"""Submitting over real gRPC to a league server in process: the samples accepted, versions
numbered and kept by hash, quotas and tokens refused with the limit named."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from submit_harness import SAMPLES, desk
from tls_certificates import self_signed

from arena.protocol.messages import admin as apb
from arena.referee.service.referee_server import Tls
from arena.store.submissions import SubmissionState
from arena.submissions.archive import pack
from arena.submissions.client import Server, submit, use_version
from arena.tournament.versions import tree_sha256

PYTHON_SAMPLES = ["random_bot.py", "binomial_bot.py", "bluffer_bot.py", "strong_bot.py", "expert"]


@pytest.mark.slow
def test_each_python_sample_is_accepted_and_kept(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            verdicts = await asyncio.gather(*(d.send_bot(SAMPLES / s) for s in PYTHON_SAMPLES))
            for sample, verdict in zip(PYTHON_SAMPLES, verdicts, strict=True):
                assert verdict.accepted, (sample, verdict)
                assert verdict.version == 1
                assert verdict.line() == f"accepted as version 1 of {verdict.name}"
                source = d.files.source(verdict.sha256)
                assert tree_sha256(source) == verdict.sha256
                assert (d.files.bot(verdict.sha256) / "bot.toml").is_file()
            rows = d.server.store.submissions()
            assert {r.state for r in rows} == {SubmissionState.ACCEPTED}
            report = json.loads(rows[0].check_report)
            assert report and all(check["passed"] for check in report)
            assert any(
                f"{v.name}: accepted as version 1" in line for v in verdicts for line in d.said
            )

    asyncio.run(body())


def test_versions_are_numbered_and_the_same_files_kept_once(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = tmp_path / "mine"
            bot.mkdir()
            (bot / "bot.toml").write_text('name = "mine"\nrun = "python bot.py"\n')
            (bot / "bot.py").write_bytes((SAMPLES / "random_bot.py").read_bytes())
            token = d.register("mine")
            first = await d.send(pack(bot), token)
            replies: list = []  # type: ignore[type-arg]
            again = await d.send(pack(bot), token, replies)
            assert (first.version, again.version) == (1, 1) and again.accepted
            assert any("version 1 already" in r.line.text for r in replies if r.line.text)
            (bot / "bot.py").write_text((bot / "bot.py").read_text() + "\n# v2\n")
            second = await d.send(pack(bot), token)
            assert second.version == 2 and second.sha256 != first.sha256
            assert len(d.server.store.submissions("mine")) == 2
            assert d.server.store.playing_versions()["mine"].version == 2
            chosen = await use_version(d.address, "mine", token, 1)
            assert chosen.accepted and chosen.version == 1
            assert d.server.store.playing_versions()["mine"].version == 1
            wrong = await use_version(d.address, "mine", token, 7)
            assert wrong.reason == "mine has no version 7 (its versions: 1, 2)"
            listed = await d.admin.ListSubmissions(
                apb.ListSubmissionsRequest(author="mine"), metadata=d.metadata
            )
            assert [(s.version, s.playing) for s in listed.submissions] == [(2, False), (1, True)]
            now = await d.admin.WithdrawSubmission(
                apb.WithdrawSubmissionRequest(name="mine", version=1), metadata=d.metadata
            )
            assert now.playing == 2
            assert (await use_version(d.address, "mine", token, 1)).reason == (
                "version 1 of mine was withdrawn by the organiser"
            )

    asyncio.run(body())


def test_a_bot_that_fails_its_check_is_refused_with_what_it_sent(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = tmp_path / "crash"
            bot.mkdir()
            (bot / "bot.toml").write_text('name = "crash"\nrun = "python bot.py"\n')
            (bot / "bot.py").write_text("import sys\nprint('no referee for me')\nsys.exit(3)\n")
            verdict = await d.send_bot(bot)
            assert not verdict.accepted
            assert verdict.line().startswith("rejected: check 'connects and says hello' failed:")
            assert "exited with code 3" in verdict.reason and "no referee for me" in verdict.reason
            (row,) = d.server.store.submissions()
            assert row.state is SubmissionState.REJECTED and row.version is None
            assert d.stored()[1:] == ([], [])  # the row alone: its files are not kept

    asyncio.run(body())


def test_a_failed_build_is_refused_with_its_last_line(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = tmp_path / "broken"
            bot.mkdir()
            (bot / "bot.toml").write_text(
                'name = "broken"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
            )
            (bot / "build.sh").write_text(
                "echo compiling\necho 'error: no such crate' >&2\nexit 2\n"
            )
            (bot / "bot.py").write_text("")
            replies: list = []  # type: ignore[type-arg]
            verdict = await d.send(pack(bot), d.register("broken"), replies)
            assert verdict.reason == "the build failed with exit code 2: error: no such crate"
            built = [r.line.text for r in replies if r.line.stage == "build"]
            assert built == ["compiling", "error: no such crate"]  # streamed as it came
            (row,) = d.server.store.submissions()
            assert "error: no such crate" in row.build_log

    asyncio.run(body())


def test_a_tls_server_takes_submissions_over_tls_and_says_what_to_set_in_plaintext(
    tmp_path: Path,
) -> None:
    cert, key = self_signed(tmp_path)

    async def body() -> None:
        tls = Tls(cert.read_bytes(), key.read_bytes())
        async with desk(tmp_path, tls=tls) as d:
            token = d.register("random-bot")
            packed = pack(SAMPLES / "random_bot.py")
            address = f"127.0.0.1:{d.server.port}"
            plain = await submit(Server(address), token, packed, lambda _: None)
            assert "speaks TLS" in plain.reason and "PERUDO_TLS=1" in plain.reason
            secure = await submit(Server(address, True, str(cert)), token, packed, lambda _: None)
            assert secure.accepted, secure

    asyncio.run(body())


def test_a_bot_needing_a_program_the_server_lacks_is_refused_naming_it(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = tmp_path / "exotic"
            bot.mkdir()
            (bot / "bot.toml").write_text(
                'name = "exotic"\nrun = "python bot.py"\nrequires = ["no-such-compiler-here"]\n'
            )
            (bot / "bot.py").write_text("")
            verdict = await d.send_bot(bot)
            assert verdict.line().startswith(
                "rejected: it needs no-such-compiler-here, which this server does not offer; "
                "it offers: "
            )

    asyncio.run(body())
