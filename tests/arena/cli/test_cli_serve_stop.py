"""`arena serve` stopped by SIGTERM with an upload half received: it exits 0, says no
traceback, and its JSON log stays one object a line; the author is told the server stopped."""

from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path

import grpc
import pytest
from cli_harness import Cli, arena_command, clean_env, wait_for

from arena.protocol.messages import submission as spb
from arena.protocol.messages import submission_grpc as spb_grpc
from arena.submissions.contract import UPLOAD_STOPPED

LIMIT_S = 90


@pytest.mark.parametrize("log_format", ["screen", "json"])
def test_a_stop_during_an_upload_says_no_traceback(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]], log_format: str
) -> None:
    league = tmp_path / "league.sqlite"
    code, out, _ = cli("token", "add", "alice", "--league", str(league))
    assert code == 0
    token = out.strip().splitlines()[-1]
    stdout, stderr = tmp_path / "serve.out", tmp_path / "serve.err"
    with stdout.open("wb") as o, stderr.open("wb") as e:
        serve = subprocess.Popen(
            [
                *arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0",
                "--league", str(league), "--out", str(tmp_path / "results"),
                "--log-format", log_format,
            ],
            env=clean_env(), stdin=subprocess.DEVNULL, stdout=o, stderr=e,
        )  # fmt: skip
    processes.append(serve)

    def port() -> int | None:
        found = re.search(r"Referee listening on 127\.0\.0\.1:(\d+)", stdout.read_text())
        assert serve.poll() is None, stdout.read_text() + stderr.read_text()
        return int(found[1]) if found else None

    bots = wait_for(port, "arena serve listens", LIMIT_S)
    with grpc.insecure_channel(f"127.0.0.1:{bots}") as channel:
        requests: list[spb.SubmitRequest] = [
            spb.SubmitRequest(
                header=spb.SubmitHeader(name="alice", token=token, size=100_000, format="tar.gz")
            ),
            spb.SubmitRequest(chunk=b"x" * 1000),
        ]
        sent = []

        def upload() -> object:  # half the archive, then the stream held open
            for request in requests:
                sent.append(request)
                yield request
            wait_for(lambda: serve.poll() is not None, "the server stops", LIMIT_S)

        replies = spb_grpc.SubmissionServiceStub(channel).Submit(upload())  # type: ignore[no-untyped-call]
        assert next(replies).WhichOneof("kind") == "ready"
        wait_for(lambda: "is coming" in stdout.read_text(), "the upload is under way", LIMIT_S)
        wait_for(lambda: len(sent) == 2, "half the archive is sent", LIMIT_S)
        serve.send_signal(signal.SIGTERM)
        verdict = next(replies).verdict
    assert serve.wait(timeout=LIMIT_S) == 0
    assert verdict.reason == UPLOAD_STOPPED
    printed, errors = stdout.read_text(), stderr.read_text()
    assert "Traceback" not in printed + errors, printed + errors
    assert "Stopped." in printed and "rejected" not in printed
    if log_format == "json":
        lines = (printed + errors).splitlines()
        assert all(isinstance(json.loads(line), dict) for line in lines), lines
