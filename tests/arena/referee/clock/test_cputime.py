"""Which process answers a session, and how much CPU a process (or its tree) has used."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.referee.clock import cputime

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/schedstat").exists(), reason="no /proc schedstat here"
)

SPIN_S = 0.3
DIAL = (
    "import socket, sys, time\n"
    "s = socket.socket(socket.AF_UNIX)\n"
    "s.connect(sys.argv[1])\n"
    "print('connected', flush=True)\n"
    "time.sleep(60)\n"
)
SPIN = (
    "import time\n"
    f"until = time.process_time() + {SPIN_S}\n"
    "while time.process_time() < until: pass\n"
    "print('spun', flush=True)\n"
    "time.sleep(60)\n"
)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        process.kill()
        process.wait(timeout=10)


def _under_a_shell(code: str, *args: str) -> list[str]:
    """A shell that starts Python and waits for it: the answering process is a child."""
    return ["sh", "-c", f'"{sys.executable}" -c "$0" "$@"; :', code, *args]


def test_the_process_holding_a_unix_connection_is_found_among_the_descendants(
    tmp_path: Path, started: list[subprocess.Popen[str]]
) -> None:
    path = tmp_path / "referee.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        server.listen()
        dialler = subprocess.Popen(
            _under_a_shell(DIAL, str(path)), stdout=subprocess.PIPE, text=True
        )
        started.append(dialler)
        assert dialler.stdout is not None and dialler.stdout.readline() == "connected\n"
        accepted, _ = server.accept()
        with accepted:
            holder = cputime.process_holding(dialler.pid, "unix:")
            assert holder is not None and holder != dialler.pid
            assert cputime.descendants(dialler.pid)[1:] == [holder]
            # Taken by another session already: it is shared, not lost.
            assert cputime.process_holding(dialler.pid, "unix:", taken={holder}) == holder
        # Once the referee's end is closed, nothing of ours is held.
        assert cputime.process_holding(dialler.pid, "unix:") is None


def test_a_tree_sample_counts_the_children_the_root_alone_does_not(
    started: list[subprocess.Popen[str]],
) -> None:
    spinner = subprocess.Popen(_under_a_shell(SPIN), stdout=subprocess.PIPE, text=True)
    started.append(spinner)
    assert spinner.stdout is not None and spinner.stdout.readline() == "spun\n"
    alone = cputime.sample(spinner.pid)
    tree = cputime.sample(spinner.pid, tree=True)
    assert alone is not None and tree is not None
    assert alone.on_cpu < SPIN_S / 2
    assert tree.on_cpu >= SPIN_S


def test_a_socket_pair_is_told_as_peers() -> None:
    left, right = socket.socketpair()
    with left, right:
        peers = cputime._unix_peers()
        inodes = os.fstat(left.fileno()).st_ino, os.fstat(right.fileno()).st_ino
        assert peers[inodes[0]] == inodes[1] and peers[inodes[1]] == inodes[0]


def test_a_meter_rereads_its_open_file_and_says_nothing_once_closed_or_gone() -> None:
    spinner = subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.DEVNULL)
    try:
        meter = cputime.Meter(spinner.pid)
        first = meter.sample()
        assert first is not None
        while (later := meter.sample()) is not None and later.on_cpu < SPIN_S * 0.9:
            pass  # the same open file, read again, follows the process as it runs
        assert later is not None and later.on_cpu >= SPIN_S * 0.9 > first.on_cpu
        fresh = cputime.sample(spinner.pid)
        assert fresh is not None and abs(fresh.on_cpu - later.on_cpu) < 0.2
        spinner.kill()
        spinner.wait(timeout=30)
        assert meter.sample() is None  # its process is gone
        meter.close()
        assert meter.sample() is None
    finally:
        spinner.kill()
