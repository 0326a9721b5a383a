"""Set resource limits, join the bot's cgroups, then become the bot (or watch over it).

    python -m arena.bots.run.launcher --memory-mb 2048 --cpu-s 3600 --nproc 256 --nofile 256
                             [--fsize-mb 64] [--cgroup DIR ...] [--supervise | --slirp PATH]
                             -- CMD...

The referee's process runs grpc's threads, which makes `preexec_fn` unsafe
there; so each bot starts through this small program, which limits itself
and then execs the bot's command in its place. Every process it starts dies
with the arena, even when the arena is killed outright:

- the launcher asks for SIGKILL when the arena dies (the parent-death
  signal), and keeps it through exec;
- a sandboxed command is `bwrap --die-with-parent --unshare-pid ...`: when
  bwrap dies, its PID namespace dies, and every process in it;
- a build with the isolated network (`--slirp`) keeps the launcher as bwrap's
  parent, which attaches slirp4netns to the sandbox (`arena.bots.isolation.slirp`):
  bwrap dies with it, and slirp4netns too;
- without a sandbox, `--supervise` keeps the launcher as the parent of the
  command and the subreaper of everything it starts: when the command ends,
  or the arena dies (SIGHUP, its parent-death signal), it kills every
  descendant left, including a daemon that left the process group.
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import os
import resource
import signal
import sys
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_STOP_GRACE_S = 2


def _prctl(option: int, value: int) -> None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value)
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


def _descendants(root: int) -> set[int]:
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found: set[int] = set()
    frontier = {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _kill_descendants() -> None:
    """SIGKILL and reap everything below this process (orphans come to it: subreaper)."""
    for _ in range(50):
        left = _descendants(os.getpid())
        if not left:
            return
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            while os.waitpid(-1, os.WNOHANG)[0] > 0:
                pass


def _supervise(command: list[str]) -> int:
    """Run `command` as a child; when it ends, or this process is told to stop, end its tree.

    SIGTERM (the arena stopping the bot) is passed on, and what is left after
    a grace is killed; SIGHUP (the parent-death signal: the arena is gone)
    kills everything at once.
    """
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    child = 0
    gone = False

    def kill_all(_signum: int, _frame: object) -> None:
        nonlocal gone
        gone = True
        _kill_descendants()

    def stop(_signum: int, _frame: object) -> None:
        if child:
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGTERM)
        signal.alarm(_STOP_GRACE_S)

    signal.signal(signal.SIGHUP, kill_all)
    signal.signal(signal.SIGALRM, kill_all)
    signal.signal(signal.SIGTERM, stop)
    child = os.fork()
    if child == 0:
        for sig in (signal.SIGHUP, signal.SIGALRM, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        try:
            os.execvp(command[0], command)
        except OSError as error:
            print(f"launcher: cannot start {command[0]!r}: {error}", file=sys.stderr)
        os._exit(127)
    if gone:  # the arena died while the child was being made
        _kill_descendants()
    code = 1
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        if pid == child:
            code = os.waitstatus_to_exitcode(status)
            break
    _kill_descendants()
    return code if code >= 0 else 128 - code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arena.bots.run.launcher")
    parser.add_argument("--memory-mb", type=int)
    parser.add_argument("--cpu-s", type=int)
    parser.add_argument("--nproc", type=int)
    parser.add_argument("--nofile", type=int)
    parser.add_argument("--fsize-mb", type=int, help="largest file the bot may write")
    parser.add_argument("--cgroup", type=Path, action="append", default=[])
    parser.add_argument("--supervise", action="store_true")
    parser.add_argument("--slirp", help="slirp4netns, to attach to the bwrap sandbox of CMD")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no command to run")
    # First of all, so that an arena killed while this starts still takes it along.
    _prctl(_PR_SET_PDEATHSIG, signal.SIGHUP if args.supervise else signal.SIGKILL)
    if os.getppid() == 1:
        return 125  # the arena is already gone
    try:
        for group in args.cgroup:
            (group / "cgroup.procs").write_text(str(os.getpid()))
        _limit(resource.RLIMIT_AS, args.memory_mb * 1024 * 1024 if args.memory_mb else None)
        _limit(resource.RLIMIT_CPU, args.cpu_s)
        _limit(resource.RLIMIT_NPROC, args.nproc)
        _limit(resource.RLIMIT_NOFILE, args.nofile)
        _limit(resource.RLIMIT_FSIZE, args.fsize_mb * 1024 * 1024 if args.fsize_mb else None)
        _limit(resource.RLIMIT_CORE, 0)
    except (ValueError, OSError) as error:
        print(f"launcher: cannot set resource limits: {error}", file=sys.stderr)
        return 126
    if args.supervise:
        return _supervise(command)
    if args.slirp:
        # Here, not at the top: a bot's start-up does not pay for what only builds use.
        from arena.bots.isolation.slirp import run_attached

        return run_attached(command, args.slirp)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"launcher: cannot start {command[0]!r}: {error}", file=sys.stderr)
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    raise SystemExit(main())
