"""In the launcher: start a build's bwrap, attach slirp4netns to it, then let the build run.

The sandbox is made at once, then waits (bwrap's `--block-fd`) for one byte
before it runs the build; meanwhile slirp4netns joins the sandbox's network
namespace by its pid (bwrap's `--info-fd`) and says when the interface is
up (`--ready-fd`). Only then does the build start, so its first fetch finds
the network.

slirp4netns ends with the build however it ends: its `--exit-fd` is a pipe
whose other end only this process holds, so it sees the end of file when
this process closes it or dies; and it is in the build's process group and
cgroup, which the arena kills when the build is over.

This runs in the launcher, a single-threaded program, where forking and
running Python before exec is safe; never in the arena's own process.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import signal
import subprocess
import sys
import tempfile

from arena.bots.buildnet import BLOCK_FD, INFO_FD, RESOLV_CONF, RESOLV_FD, SLIRP_ARGS

_PR_SET_PDEATHSIG = 1
_SLIRP_GRACE_S = 5.0
_INFO_LIMIT = 1 << 16


def run_attached(command: list[str], slirp: str) -> int:
    """Run bwrap's `command` with slirp4netns attached to its sandbox; its exit status."""
    info_r, info_w = os.pipe()
    block_r, block_w = os.pipe()
    resolv_r, resolv_w = os.pipe()
    bwrap = _fork_exec(command, {INFO_FD: info_w, BLOCK_FD: block_r, RESOLV_FD: resolv_r})
    for fd in (info_w, block_r, resolv_r):
        os.close(fd)
    slirp_process: subprocess.Popen[bytes] | None = None

    def stop(_signum: int, _frame: object) -> None:
        """The arena ends the build: pass it on to bwrap, as when bwrap was this process."""
        with contextlib.suppress(ProcessLookupError):
            os.kill(bwrap, signal.SIGTERM)
        if slirp_process is not None:
            slirp_process.kill()

    signal.signal(signal.SIGTERM, stop)
    with contextlib.suppress(BrokenPipeError):
        os.write(resolv_w, RESOLV_CONF)
    os.close(resolv_w)
    exit_r, exit_w = os.pipe()
    try:
        child = _child_pid(info_r)
        if child is not None:
            slirp_process, failure = _attach(slirp, child, exit_r)
            if failure:
                print(f"launcher: {failure}", file=sys.stderr, flush=True)
                os.kill(bwrap, signal.SIGKILL)
            else:
                with contextlib.suppress(BrokenPipeError):
                    os.write(block_w, b"1")
        os.close(block_w)
        code = _wait(bwrap)
    finally:
        os.close(exit_w)  # slirp4netns's cue to end
        os.close(exit_r)
        os.close(info_r)
        if slirp_process is not None:
            try:
                slirp_process.wait(_SLIRP_GRACE_S)
            except subprocess.TimeoutExpired:
                slirp_process.kill()
                slirp_process.wait()
    return code if child is not None else max(code, 1)


def _fork_exec(command: list[str], fds: dict[int, int]) -> int:
    """Start `command` with each of `fds` at its number there; it dies with this process."""
    pid = os.fork()
    if pid != 0:
        return pid
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        moved = {at: fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for at, fd in fds.items()}
        for at, fd in moved.items():
            os.dup2(fd, at)  # inheritable, unlike every other descriptor of this process
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        os.execvp(command[0], command)
    except OSError as error:
        print(f"launcher: cannot start {command[0]!r}: {error}", file=sys.stderr, flush=True)
    os._exit(127)


def _child_pid(info: int) -> int | None:
    """The sandbox's pid, from bwrap's JSON; None when bwrap ended before it said."""
    said = b""
    while len(said) < _INFO_LIMIT:
        chunk = os.read(info, 4096)
        if not chunk:
            return None
        said += chunk
        with contextlib.suppress(ValueError):
            pid = json.loads(said).get("child-pid")
            return pid if isinstance(pid, int) and pid > 0 else None
    return None


def _attach(slirp: str, pid: int, exit_r: int) -> tuple[subprocess.Popen[bytes] | None, str]:
    """Start slirp4netns on the sandbox's network namespace and wait until it is up."""
    ready_r, ready_w = os.pipe()
    # Its chatter (the tap's fd, "exiting") is not the build's: kept apart, said on failure.
    with tempfile.TemporaryFile() as chatter:
        try:
            process = subprocess.Popen(
                [
                    slirp,
                    *SLIRP_ARGS,
                    f"--ready-fd={ready_w}",
                    f"--exit-fd={exit_r}",
                    str(pid),
                    "tap0",
                ],
                stdin=subprocess.DEVNULL,
                stdout=chatter,
                stderr=chatter,
                pass_fds=(ready_w, exit_r),
            )
        except OSError as error:
            return None, f"cannot start slirp4netns: {error}"
        finally:
            os.close(ready_w)
        try:
            ready = os.read(ready_r, 1)
        finally:
            os.close(ready_r)
        if ready:
            return process, ""
        process.wait()
        chatter.seek(0)
        said = chatter.read(4096).decode(errors="replace").strip().splitlines()[-1:] or ["?"]
    return process, f"slirp4netns could not attach to the build's sandbox: {said[0][:200]}"


def _wait(pid: int) -> int:
    try:
        _, status = os.waitpid(pid, 0)
    except ChildProcessError:
        return 1
    code = os.waitstatus_to_exitcode(status)
    return code if code >= 0 else 128 - code


def _prctl(option: int, value: int) -> None:
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(option, value)
