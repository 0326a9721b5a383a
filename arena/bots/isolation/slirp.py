"""In the launcher: start a build's bwrap, attach slirp4netns to it, then let the build run.

The sandbox is made at once; once set up it says so on a pipe, then waits
on another before it runs the build (`arena.bots.isolation.buildnet.AWAIT_NETWORK`).
Meanwhile slirp4netns joins the sandbox's network namespace by its pid
(bwrap's `--info-fd`) and says when the interface is up (`--ready-fd`).
Then this machine's own addresses and the link-local networks are fenced
off in the sandbox's network (`arena.bots.isolation.hostfence`), and only then does
the build start, so its first fetch finds the network.

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

from arena.bots.isolation.buildnet import (
    GO_FD,
    INFO_FD,
    RESOLV_CONF,
    RESOLV_FD,
    SET_UP_FD,
    SLIRP_ARGS,
)
from arena.bots.isolation.hostfence import fence, fenced

_PR_SET_PDEATHSIG = 1
_INFO_LIMIT = 1 << 16
_NS_GET_USERNS = 0xB701
"""ioctl(2) on a namespace: the user namespace that owns it (linux/nsfs.h)."""


def run_attached(command: list[str], slirp: str) -> int:
    """Run bwrap's `command` with slirp4netns attached to its sandbox; its exit status."""
    info_r, info_w = os.pipe()
    set_up_r, set_up_w = os.pipe()
    go_r, go_w = os.pipe()
    resolv_r, resolv_w = os.pipe()
    inside = {INFO_FD: info_w, SET_UP_FD: set_up_w, GO_FD: go_r, RESOLV_FD: resolv_r}
    bwrap = _fork_exec(command, inside)
    for fd in inside.values():
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
    namespaces = None
    try:
        namespaces = _namespaces(info_r)
        if namespaces is not None and os.read(set_up_r, 1):
            slirp_process, failure = _attach(slirp, namespaces, exit_r)
            failure = failure or fence(*namespaces, fenced())
            if failure:
                print(f"launcher: {failure}", file=sys.stderr, flush=True)
                os.kill(bwrap, signal.SIGKILL)
            else:
                with contextlib.suppress(BrokenPipeError):
                    os.write(go_w, b"go\n")
        os.close(go_w)
        code = _wait(bwrap)
    finally:
        os.close(exit_w)  # slirp4netns's cue to end
        for fd in (exit_r, info_r, set_up_r, *(namespaces or ())):
            os.close(fd)
        if slirp_process is not None:  # the build is over: nothing of slirp's to wait for
            slirp_process.kill()
            slirp_process.wait()
    return code if slirp_process is not None else max(code, 1)


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


def _namespaces(info: int) -> tuple[int, int] | None:
    """The sandbox's network namespace and the user namespace that owns it, opened from
    bwrap's JSON; None when bwrap ended before it said.

    The owner is asked of the network namespace itself: the sandbox's own user
    namespace soon is another, nested in the first, with no power over the network.
    """
    said = b""
    while len(said) < _INFO_LIMIT:
        chunk = os.read(info, 4096)
        if not chunk:
            return None
        said += chunk
        try:
            pid = json.loads(said).get("child-pid")
        except ValueError:
            continue
        if not isinstance(pid, int) or pid <= 0:
            return None
        try:
            net = os.open(f"/proc/{pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            owner = fcntl.ioctl(net, _NS_GET_USERNS)
        except OSError:
            os.close(net)
            return None
        os.set_inheritable(owner, False)
        return owner, net
    return None


def _attach(
    slirp: str, namespaces: tuple[int, int], exit_r: int
) -> tuple[subprocess.Popen[bytes] | None, str]:
    """Start slirp4netns on the sandbox's network namespace and wait until it is up."""
    user, net = namespaces
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
                    "--netns-type=path",
                    f"--userns-path=/proc/self/fd/{user}",
                    f"/proc/self/fd/{net}",
                    "tap0",
                ],
                stdin=subprocess.DEVNULL,
                stdout=chatter,
                stderr=chatter,
                pass_fds=(ready_w, exit_r, user, net),
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
        said = chatter.read(4096).decode(errors="replace").strip().splitlines()[-2:] or ["?"]
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
