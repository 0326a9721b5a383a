"""The soak's league server and the organiser's commands, each a real `arena` process.

The server is `arena serve --ladder --log-format json` in a process of its own, as an
organiser runs it: its events (where it listens, each ladder game) are read from its log as
it writes them, its memory from /proc, and it is stopped as an organiser stops it (SIGTERM)
or killed as a crash would (SIGKILL). Tokens, submissions and the league's check go through
`arena token`, `arena submit` and `arena league check`, the commands an organiser and the
entrants use, never through the store or the server's insides.
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench import proctree
from bench.benchmark import BenchError

LISTEN_S = 120.0
"""The most a server may take to say where it listens (it opens its store, builds nothing)."""


def arena(*args: str) -> list[str]:
    """The command line of `arena ARGS` in this interpreter."""
    return [sys.executable, "-m", "arena.cli.main", *args]


def environment() -> dict[str, str]:
    """This process's environment without the PERUDO_ settings, which would steer the
    commands (a token, an address) away from what the soak gives them."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")}


def run(args: list[str], limit: float) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` to its end, its output captured; a BenchError when it outlives `limit`."""
    try:
        return subprocess.run(
            arena(*args),
            env=environment(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise BenchError(f"arena {args[0]} {args[1]} took more than {limit:.0f} s") from None


@dataclass(frozen=True, slots=True)
class Event:
    kind: str
    at: float
    """Seconds since the epoch, as the server stamped it."""
    fields: dict[str, object]


def _event(line: str) -> Event | None:
    try:
        data = json.loads(line)
        at = datetime.datetime.fromisoformat(str(data["time"])).timestamp()
        return Event(str(data["event"]), at, data)
    except (ValueError, KeyError, TypeError):
        return None  # a line that is no event (a warning written to stderr, say)


class EventLog:
    """The server's log, read as it grows: its events, and what else it said."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._offset = 0
        self._partial = b""

    def events(self) -> list[Event]:
        """The events written since the last call (a line half written waits for its end)."""
        with self.path.open("rb") as log:
            log.seek(self._offset)
            data = log.read()
        self._offset += len(data)
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        text = (line.decode(errors="replace") for line in lines)
        return [e for e in map(_event, text) if e is not None]

    def tail(self) -> str:
        """The last line that is not an event (what a process that fell over said), else
        the last line."""
        text = self.path.read_text(errors="replace").strip().splitlines()
        plain = [line for line in text if not line.startswith("{")]
        return (plain or text or ["(nothing)"])[-1][-300:]


DIES_WITH_THE_SOAK = (
    "import ctypes, os, signal, sys; "
    "ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL); "  # PR_SET_PDEATHSIG
    "os.getppid() == int(sys.argv[1]) or sys.exit(1); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
)
"""The server's process, before it becomes the server: to be killed if the soak is (a
test's time limit, a SIGKILL), so that no league server is left playing on its own; and
to end at once if the soak is gone already. Set here, not by `preexec_fn`, which is unsafe
in a process with threads (grpc's, once it has made a channel)."""


class Served:
    """One run of `arena serve ARGS`, its log in `log`."""

    def __init__(self, args: list[str], log: Path) -> None:
        command = [sys.executable, "-c", DIES_WITH_THE_SOAK, str(os.getpid())]
        command += arena(*args)[1:]
        with log.open("wb") as out:
            self.process = subprocess.Popen(
                command,
                env=environment(),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.log = EventLog(log)
        self.address = ""

    @property
    def pid(self) -> int:
        return self.process.pid

    def events(self) -> list[Event]:
        return self.log.events()

    def tail(self) -> str:
        return self.log.tail()

    def wait_listening(self, seen: Callable[[Event], None]) -> None:
        """Until the server says where bots connect; every event read meanwhile goes to
        `seen`. A BenchError if it ends first or takes longer than LISTEN_S."""
        deadline = time.monotonic() + LISTEN_S
        while not self.address:
            for event in self.events():
                seen(event)
                if event.kind == "listening" and event.fields.get("service") == "bots":
                    self.address = str(event.fields["address"])
            if self.address:
                return
            if self.process.poll() is not None:
                raise BenchError(f"arena serve ended before it listened: {self.tail()}")
            if time.monotonic() > deadline:
                raise BenchError(f"arena serve did not listen within {LISTEN_S:.0f} s")
            time.sleep(0.1)

    def memory(self) -> tuple[int, int]:
        """The server's resident bytes, and its whole tree's."""
        return proctree.tree_rss(self.pid)

    def kill(self) -> list[proctree.Process]:
        """SIGKILL, as a crash or the OOM killer would; the processes it had started, to
        see whether they outlive it."""
        started = proctree.tree(self.pid)[1:]
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=60)
        return started

    def stop(self, limit: float) -> tuple[str, bool]:
        """SIGTERM, as an organiser stops it: the games in flight finish first. How it went,
        and whether cleanly (exit 0 within `limit`)."""
        if self.process.poll() is not None:
            return f"it had already ended (exit status {self.process.returncode})", False
        begun = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            status = self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=60)
            return f"still running {limit:.0f} s after SIGTERM; killed", False
        took = time.monotonic() - begun
        if status != 0:
            return f"exit {status} in {took:.1f} s: {self.tail()}", False
        return f"exit 0 in {took:.1f} s after SIGTERM", True

    def close(self) -> None:
        """Kill it if it still runs (the soak was cut short)."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=60)
