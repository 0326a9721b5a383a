"""A process apart from the arena that ends every bot the moment the arena dies.

Parent-death signals already end a sandboxed bot when the arena dies, but
one level at a time: the launcher (bwrap) when the arena goes, bwrap's init
when the launcher goes, the bot when its PID namespace goes. Each level waits
for the one above it to be torn down by the kernel, and with hundreds of bots
all tearing down at once that took seconds (at 500 bots, 188 of 2,000
processes were still running a second after a SIGKILL of the arena).

So the arena starts this small program once, in a session of its own, and
tells it through a pipe which processes it started (`+PID`) and which it has
seen end (`-PID`). The program holds a pidfd for each, so a pid the kernel
has since given to another process is never signalled. When the pipe closes,
however the arena went (a SIGKILL included), it kills each process it still
holds and the process group that process leads, all at once, and exits.

    python -m arena.bots.run.warden     (reads `+PID` / `-PID` lines on stdin)
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable


def _end(pidfd: int, pid: int) -> None:
    """SIGKILL the process behind `pidfd` and, while it (or its zombie) still holds its pid,
    the group it leads: no other process can hold that pid or that group id meanwhile."""
    try:
        signal.pidfd_send_signal(pidfd, signal.SIGKILL)
    except ProcessLookupError:
        return  # reaped: its pid may already be another process's
    except OSError:
        pass
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def watch(lines: Iterable[bytes]) -> None:
    """Follow the arena's `+PID` / `-PID` lines until they end, then end every pid held."""
    held: dict[int, int] = {}
    for line in lines:
        try:
            pid = int(line[1:])
        except ValueError:
            continue
        if line.startswith(b"+"):
            with contextlib.suppress(OSError):
                held[pid] = os.pidfd_open(pid)
        elif line.startswith(b"-") and pid in held:
            os.close(held.pop(pid))
    for pid, pidfd in held.items():
        _end(pidfd, pid)


def main() -> int:
    # The terminal's signals are the arena's to handle; this outlives them to do its work.
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(sig, signal.SIG_IGN)
    # A pidfd a process: a night of hundreds of bots and their builds passes the usual 1,024.
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    watch(sys.stdin.buffer)
    return 0


class Warden:
    """The arena's side: one warden per arena process, started with its first bot."""

    _lock = threading.Lock()
    _child: subprocess.Popen[bytes] | None = None
    _failed = False

    @classmethod
    def _write(cls, line: bytes) -> None:
        with cls._lock:
            if cls._child is None and not cls._failed:
                cls._child = cls._start()
            if cls._child is None or cls._child.stdin is None:
                return
            try:
                os.write(cls._child.stdin.fileno(), line)
            except BlockingIOError:
                pass  # the warden is behind: this pid is left to the parent-death signals
            except OSError:
                cls._failed = True  # the warden is gone: the parent-death signals remain
                cls._child = None

    @classmethod
    def _start(cls) -> subprocess.Popen[bytes] | None:
        if not hasattr(os, "pidfd_open"):
            cls._failed = True
            return None
        try:
            child = subprocess.Popen(
                [sys.executable, "-m", "arena.bots.run.warden"],
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError:
            cls._failed = True
            return None
        # The write end is close-on-exec, as every pipe Python makes: no bot holds it open,
        # or the warden would not see the arena go while that bot lived.
        assert child.stdin is not None
        os.set_blocking(child.stdin.fileno(), False)
        return child

    @classmethod
    def watch(cls, pid: int) -> None:
        """End `pid` (and the group it leads) if this process dies before `release(pid)`."""
        cls._write(b"+%d\n" % pid)

    @classmethod
    def release(cls, pid: int) -> None:
        """`pid` has ended and been reaped: forget it before its number can be reused."""
        cls._write(b"-%d\n" % pid)


if __name__ == "__main__":
    raise SystemExit(main())
