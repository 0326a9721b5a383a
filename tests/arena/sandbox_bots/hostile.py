"""A hostile entrant: before it plays, it tries everything a sandbox must stop.

It reads what to aim at from `targets.json` beside it (the test writes it),
tries each attack, and prints one line `HOSTILE {json}` saying what it got;
then it plays honestly, so the test can also see that its games went on.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import signal
import socket
import sys
import time
from pathlib import Path

from arena.kit import PASS, Answer, run
from engine import DUDO, Bid, Observation

HERE = Path(__file__).resolve().parent
TARGETS = json.loads((HERE / "targets.json").read_text())
_PTRACE_ATTACH = 16
_PTRACE_DETACH = 17


def read(path: str) -> str | None:
    try:
        return Path(path).read_text(errors="replace")[:200]
    except OSError as error:
        return f"error: {error.strerror}"


def listing(path: str) -> list[str] | str:
    try:
        return sorted(os.listdir(path))
    except OSError as error:
        return f"error: {error.strerror}"


def own_tree() -> set[int]:
    return {int(p) for p in os.listdir("/proc") if p.isdigit()}


def foreign_tokens() -> list[str]:
    """PERUDO_TOKEN values in any process environment that is not this bot's own."""
    mine = os.environ.get("PERUDO_TOKEN", "")
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                for item in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                    if item.startswith(b"PERUDO_TOKEN="):
                        token = item.split(b"=", 1)[1].decode()
                        if token != mine:
                            found.append(token)
    return found


def reachable_pids() -> tuple[list[int], list[int]]:
    """Processes outside this bot's own view that accept a signal, and a ptrace attach."""
    visible = own_tree()
    signalled: list[int] = []
    traced: list[int] = []
    libc = ctypes.CDLL(None, use_errno=True)
    for pid in range(1, int(TARGETS["pid_max"])):
        if pid in visible:
            continue
        try:
            os.kill(pid, 0)
        except OSError:
            continue
        signalled.append(pid)
        if libc.ptrace(_PTRACE_ATTACH, pid, None, None) == 0:
            traced.append(pid)
            libc.ptrace(_PTRACE_DETACH, pid, None, None)
    return signalled, traced


def connect(host: str, port: int) -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as conn:
        conn.settimeout(3)
        started = time.monotonic()
        try:
            conn.connect((host, port))
        except OSError as error:
            name = errno.errorcode.get(error.errno or 0, str(error))
            return f"refused: {name} after {time.monotonic() - started:.2f} s"
        return "connected"


def fill_disk() -> dict[str, object]:
    """Many files of 8 MiB, so that the cap on the scratch is met, not one on a file's size."""
    written = 0
    chunk = b"x" * (1024 * 1024)
    outcome = "no error"
    try:
        while written < TARGETS["fill_mb"] * 1024 * 1024:
            with open(f"/tmp/fill-{written}", "wb") as out:
                for _ in range(8):
                    out.write(chunk)
                    out.flush()
                    written += len(chunk)
    except OSError as error:
        outcome = error.strerror or str(error)
    for name in os.listdir("/tmp"):
        with contextlib.suppress(OSError):
            os.remove(f"/tmp/{name}")
    try:
        (HERE / "planted.txt").write_text("mine now")
        own_folder = "wrote into its own folder"
    except OSError as error:
        own_folder = f"error: {error.strerror}"
    return {"mb": written // (1024 * 1024), "outcome": outcome, "own_folder": own_folder}


def fork_bomb() -> int:
    children = []
    try:
        for _ in range(TARGETS["forks"]):
            pid = os.fork()
            if pid == 0:
                time.sleep(60)
                os._exit(0)
            children.append(pid)
    except OSError:
        pass
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    return len(children)


def leave_a_daemon() -> None:
    """A grandchild in a session of its own, that means to outlive the night."""
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)"])
        os._exit(0)
    os.wait()


def report() -> dict[str, object]:
    signalled, traced = reachable_pids()
    return {
        "seed": read(TARGETS["seed"]),
        "league": read(TARGETS["league"]),
        "victim_listing": listing(TARGETS["victim"]),
        "victim_secret": read(os.path.join(TARGETS["victim"], "secret.txt")),
        "bots_listing": listing(TARGETS["bots"]),
        "foreign_tokens": foreign_tokens(),
        "signalled": signalled,
        "traced": traced,
        "loopback": connect("127.0.0.1", TARGETS["port"]),
        "remote": connect("10.255.255.1", 80),
        "disk": fill_disk(),
        "forks": fork_bomb(),
    }


def act(obs: Observation) -> Answer:
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo and obs.standing.count > obs.dice_in_play / 3:
        return DUDO
    face = max(range(2, 7), key=obs.my_dice.count)
    bid = Bid(obs.floors[face - 1], face)
    return bid if obs.may_bid(bid) else DUDO


if __name__ == "__main__":
    print("HOSTILE " + json.dumps(report()), flush=True)  # once: the kit forks after this
    leave_a_daemon()
    run(act)
