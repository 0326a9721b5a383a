"""The CLI tests' fixtures: the CLI's `main()` in process, and the processes a test starts."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest
from cli_harness import Cli


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    monkeypatch.delenv("PERUDO_ADMIN_TOKEN", raising=False)
    return Cli(capsys)


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Every process a test starts; whatever is still running at the end is killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
    for process in started:
        process.wait(timeout=10)
