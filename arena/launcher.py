"""Set resource limits, then become the bot.

    python -m arena.launcher --memory-mb 2048 --cpu-s 3600 --nproc 256 --nofile 256 -- CMD...

The referee's process runs grpc's threads, which makes `preexec_fn` unsafe
there; so each bot starts through this small program, which limits itself
and then execs the bot's command in its place.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """Ask Linux to kill the bot if the arena dies, even by SIGKILL."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass  # not Linux: the bots notice the closed stream and exit instead


def _limit(kind: int, value: int | None) -> None:
    if value is None:
        return
    _, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    # Hard = soft: a bot must not be able to raise its own limit back up.
    resource.setrlimit(kind, (value, value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.launcher")
    parser.add_argument("--memory-mb", type=int)
    parser.add_argument("--cpu-s", type=int)
    parser.add_argument("--nproc", type=int)
    parser.add_argument("--nofile", type=int)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    try:
        _limit(resource.RLIMIT_AS, args.memory_mb * 1024 * 1024 if args.memory_mb else None)
        _limit(resource.RLIMIT_CPU, args.cpu_s)
        _limit(resource.RLIMIT_NPROC, args.nproc)
        _limit(resource.RLIMIT_NOFILE, args.nofile)
        _limit(resource.RLIMIT_CORE, 0)
    except (ValueError, OSError) as error:
        print(f"launcher: cannot set resource limits: {error}", file=sys.stderr)
        return 126
    _die_with_parent()
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"launcher: cannot start {command[0]!r}: {error}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    raise SystemExit(main())
