"""A real Ray cluster of several nodes on this one machine, on loopback, for the cluster tests.

Each node is its own `ray start`, named by a custom resource and bound to an
address of its own in 127.0.0.0/8: not 127.0.0.1, which Ray swaps for the
machine's outward address, so that nothing ever leaves loopback. A node is
killed the way a machine dies: SIGKILL to every process of it at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

RAY = Path(sys.executable).parent / "ray"

# A dead node is noticed within seconds, not Ray's default half a minute.
FAST_HEALTH = {
    "RAY_health_check_initial_delay_ms": "1000",
    "RAY_health_check_period_ms": "500",
    "RAY_health_check_timeout_ms": "500",
    "RAY_health_check_failure_threshold": "4",
}


def ray_env() -> dict[str, str]:
    """For every node and the arena alike: no usage report, and no token (whether or not
    ~/.ray/auth_token exists), so that all of them agree; the cluster is on loopback."""
    return {
        **os.environ,
        "RAY_USAGE_STATS_ENABLED": "0",
        "RAY_AUTH_MODE": "disabled",
        **FAST_HEALTH,
    }


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        port: int = s.getsockname()[1]
        return port


def _table() -> dict[int, tuple[int, list[bytes]]]:
    """Every process: its parent and its command line."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parent = int(stat.rpartition(")")[2].split()[1])
                found[int(entry.name)] = (parent, (entry / "cmdline").read_bytes().split(b"\0"))
    return found


def node_processes(ip: str) -> list[int]:
    """Every process of the node at `ip`: those of Ray's that name it as their own address
    (its raylet, its agents), and everything below them (its workers, their bots)."""
    table = _table()
    own = re.compile(rb"node[-_]ip[-_]address=" + re.escape(ip.encode()) + rb"(?![0-9])")
    found = {
        pid
        for pid, (_, words) in table.items()
        if pid != os.getpid() and any(own.search(w) for w in words)
    }
    frontier = set(found)
    while frontier:
        frontier = {pid for pid, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return sorted(found)


def started_at(pid: int) -> int | None:
    """When `pid` began (clock ticks since boot), None if it is gone or a zombie: with the
    pid, it names one process even once the pid is reused."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return None if fields[0] in {"Z", "X"} else int(fields[19])


def process_tree(pid: int) -> dict[int, int]:
    """`pid` and every process below it, each with when it began (see `started_at`)."""
    table = _table()
    found = {pid}
    frontier = {pid}
    while frontier:
        frontier = {p for p, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    began = {p: started_at(p) for p in found}
    return {p: t for p, t in began.items() if t is not None}


def command_line(pid: int) -> str:
    """What `pid` was started with, its words joined by spaces ('' once it is gone)."""
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return words.replace(b"\0", b" ").decode(errors="replace")


def still_running(processes: dict[int, int]) -> list[int]:
    """The processes of `processes` (pid: when it began) that are still alive."""
    return sorted(p for p, t in processes.items() if started_at(p) == t)


@dataclass
class RayCluster:
    temp: Path
    head_ip: str = "127.0.0.2"
    port: int = 0
    nodes: list[str] = field(default_factory=list)

    @property
    def address(self) -> str:
        return f"{self.head_ip}:{self.port}"

    def start_head(self) -> None:
        self.port = free_port(self.head_ip)
        self._ray(
            "start",
            "--head",
            f"--node-ip-address={self.head_ip}",
            f"--port={self.port}",
            '--resources={"host_a": 1}',
            "--num-cpus=1",
            "--include-dashboard=false",
            "--disable-usage-stats",
            f"--temp-dir={self.temp}",
        )
        self.nodes.append(self.head_ip)

    def add_node(self, ip: str, resource: str) -> None:
        self._ray(
            "start",
            f"--address={self.address}",
            f"--node-ip-address={ip}",
            f"--resources={json.dumps({resource: 1})}",
            "--num-cpus=1",
            "--disable-usage-stats",
        )
        self.nodes.append(ip)

    def kill_node(self, ip: str) -> list[int]:
        """SIGKILL every process of the node at `ip` together, as a machine dies."""
        pids = node_processes(ip)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.nodes.remove(ip)
        return pids

    def stop(self) -> None:
        """Every node gone, whatever state the test left it in."""
        for ip in reversed(self.nodes):  # not `ray stop`: it would stop any cluster here
            self.kill_node(ip)
        if self.port:  # the head's monitor and client server name only its address
            marks = (f"{self.head_ip}:{self.port}".encode(), str(self.temp).encode())
            for pid, (_, words) in _table().items():
                if pid != os.getpid() and any(m in w for m in marks for w in words):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)

    def _ray(self, *args: str) -> None:
        done = subprocess.run(
            [str(RAY), *args],
            check=False,
            env=ray_env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"ray {args[0]} failed: {done.stdout[-2000:]}{done.stderr[-2000:]}")


def wait_until(check: object, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    assert callable(check)
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s")
