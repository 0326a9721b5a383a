"""The Java sample (sample_bots/java_grpc) on its own: built by its own Maven build (skipped
without java, javac and mvn), it warms its JVM before it dials, and says why it exits 1 when
it is misconfigured or finds no referee. Its play, its sessions, its Pings and TLS are
checked by check-bot and the TLS tests beside this one (test_samples_alone.py,
test_samples_league_tls.py)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "sample_bots" / "java_grpc"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        any(shutil.which(p) is None for p in ("java", "javac", "mvn")),
        reason="needs java, javac and mvn",
    ),
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = tmp_path_factory.mktemp("java") / "java_grpc"
    shutil.copytree(SAMPLE, built, ignore=shutil.ignore_patterns("target"))
    subprocess.run(["mvn", "-q", "-B", "package"], cwd=built, check=True, timeout=900)
    return built


def _run(folder: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}
    return subprocess.run(
        ["java", "-Xmx256m", "-jar", "target/bot.jar"],
        check=False,
        cwd=folder,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def test_without_an_address_it_exits_1_saying_what_to_set(folder: Path) -> None:
    done = _run(folder, {"PERUDO_SESSIONS": "2"})
    assert done.returncode == 1
    assert "set PERUDO_ADDRESS or --address" in done.stderr


def test_a_bad_session_count_is_refused_with_the_value(folder: Path) -> None:
    done = _run(folder, {"PERUDO_ADDRESS": "127.0.0.1:1", "PERUDO_SESSIONS": "many"})
    assert done.returncode == 1
    assert "PERUDO_SESSIONS=many" in done.stderr


def test_it_warms_up_then_gives_up_on_a_referee_that_is_not_there(folder: Path) -> None:
    address = f"127.0.0.1:{_closed_port()}"
    began = time.monotonic()
    done = _run(folder, {"PERUDO_ADDRESS": address, "PERUDO_BOT_NAME": "java-grpc"})
    took = time.monotonic() - began
    assert done.returncode == 1, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("java-grpc: warmed up on 500 positions in "), lines
    assert f"cannot reach the referee at {address}: not ready after 10 s" in done.stderr
    assert took >= 10  # it kept trying for its whole dial timeout
