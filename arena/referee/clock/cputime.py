"""What a bot's process did with a decision's time: ran on a CPU, or waited for one.

Linux tells, per process, the time it has spent on a CPU and the time it
spent runnable but waiting for one (`/proc/PID/schedstat`). Sampled around a
decision, the two say whether a slow reply was a bot thinking (CPU time
near the wall time), a bot waiting for something (neither), or a machine too
loaded to run it (the wait): the last is load, not the bot.

A session is one stream of one process, which may be a copy of the process
the arena started (the Python kit runs each session in a process of its own).
The process holding the session's connection is found once, when the
session opens, among the started process and its descendants: over TCP from
the connection's port; over the sandbox's Unix socket (which names no peer)
from the kernel's socket diagnostics (what `ss -x` shows), which pair each
of the referee's accepted sockets with the bot's end. An accepted Unix
socket belongs to the connecting side's network namespace, the sandbox's
own, so they are asked there (entering it takes privilege). The started
process of a sandboxed bot is bubblewrap, which does no work; the bot is
one of its descendants. Where the holder cannot be told, the started
process's whole tree is sampled: right for a bot playing one session, an
upper bound for one playing several.

Which of a bot's connected processes is a new session's? One not yet
answering another of the bot's sessions, open or opening (so no two share
one). When two of a bot's processes dial at the same moment, the kernel
cannot tell which Hello came on which connection: the two sessions may be
told each other's process. Each process is still one of the bot's own
sessions, so the bot's total is right. A bot that serves several sessions from
one process shares that process between them: each decision's CPU time is
then the process's, and includes whatever its other sessions computed
meanwhile (an upper bound, not a per-session figure; no platform tells
more). Elsewhere than Linux there is nothing to sample, and nothing is.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import socket
import struct
import threading
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

PROC = Path("/proc")


@dataclass(slots=True)
class CpuSample:
    """A process's CPU totals at one moment. Never changed once read, but not frozen: each
    decision reads two, and building a frozen one added a sixth to each reading's time."""

    on_cpu: float
    """Seconds the process has run on a CPU."""
    waiting: float
    """Seconds it has been runnable but waiting for a CPU."""


def sample(pid: int, tree: bool = False) -> CpuSample | None:
    """The process's totals so far (with its descendants' if `tree`), or None if not told.

    A descendant that ended takes its time with it: the tree's total is for
    processes alive at both samples, as a session's processes are.
    """
    try:
        on_cpu, waiting, _ = (PROC / str(pid) / "schedstat").read_text().split()
    except (OSError, ValueError):
        return None
    total = CpuSample(int(on_cpu) / 1e9, int(waiting) / 1e9)
    if not tree:
        return total
    for child in descendants(pid)[1:]:
        part = sample(child)
        if part is not None:
            total = CpuSample(total.on_cpu + part.on_cpu, total.waiting + part.waiting)
    return total


_CLOSED = -1


class Meter:
    """One session's CPU readings, from a /proc file it keeps open.

    Each decision is sampled twice; opening `schedstat` each time cost the
    referee about 25 us a reading, reading the open file again about 1 us.
    """

    __slots__ = ("_fd", "pid", "tree")

    def __init__(self, pid: int, tree: bool = False) -> None:
        self.pid = pid
        self.tree = tree
        self._fd: int | None = None

    def sample(self) -> CpuSample | None:
        """As `sample(pid, tree)`; None once the process is gone."""
        if self._fd == _CLOSED:
            return None
        if self.tree:
            return sample(self.pid, tree=True)
        try:
            if self._fd is None:
                self._fd = os.open(PROC / str(self.pid) / "schedstat", os.O_RDONLY)
            on_cpu, waiting, _ = os.pread(self._fd, 128, 0).split()
        except (OSError, ValueError):
            return None
        return CpuSample(int(on_cpu) / 1e9, int(waiting) / 1e9)

    def close(self) -> None:
        """Let the file go; a reading after this (a decision the close cut short) is None."""
        if self._fd is not None and self._fd != _CLOSED:
            with contextlib.suppress(OSError):
                os.close(self._fd)
        self._fd = _CLOSED


def descendants(root: int) -> list[int]:
    """`root` and every process below it (at most 4,096), from the kernel's children lists."""
    found: list[int] = []
    todo = [root]
    while todo and len(found) < 4096:
        pid = todo.pop()
        found.append(pid)
        with contextlib.suppress(OSError):
            for task in (PROC / str(pid) / "task").iterdir():
                with contextlib.suppress(OSError, ValueError):
                    todo.extend(int(c) for c in (task / "children").read_text().split())
    return found


def _socket_inode(local_port: int) -> str | None:
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            for line in (PROC / "net" / table).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) > 9 and int(fields[1].rpartition(":")[2], 16) == local_port:
                    return fields[9]
    return None


def _sockets(pid: int | str) -> set[str]:
    """The socket inodes the process holds open (as `readlink` shows them: "socket:[N]")."""
    held: set[str] = set()
    with contextlib.suppress(OSError):
        fds = PROC / str(pid) / "fd"
        for fd in os.listdir(fds):
            with contextlib.suppress(OSError):
                link = os.readlink(fds / fd)
                if link.startswith("socket:["):
                    held.add(link)
    return held


_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST_DUMP = 0x1 | 0x300
_NLMSG_ERROR, _NLMSG_DONE = 2, 3
_UDIAG_SHOW_PEER = 4
_UNIX_DIAG_PEER = 2
_HEADER = struct.Struct("=IHHII")
_UNIX_REQUEST = struct.Struct("=BBHIIIII")
_UNIX_MESSAGE = struct.Struct("=BBBBIII")
_ATTRIBUTE = struct.Struct("=HH")


def _unix_peers() -> dict[int, int]:
    """Every connected Unix socket of this network namespace: its inode, and its peer's.

    What `ss -x` shows, asked of the kernel the same way (netlink sock_diag).
    A peer in another namespace (a sandboxed bot's end) is named all the same.
    """
    request = _UNIX_REQUEST.pack(socket.AF_UNIX, 0, 0, 0xFFFFFFFF, 0, _UDIAG_SHOW_PEER, 0, 0)
    header = _HEADER.pack(
        _HEADER.size + len(request), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST_DUMP, 1, 0
    )
    peers: dict[int, int] = {}
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG) as nl:
        nl.settimeout(2.0)
        nl.send(header + request)
        while True:
            data = nl.recv(1 << 16)
            for kind, body in _messages(data):
                if kind in (_NLMSG_DONE, _NLMSG_ERROR):
                    return peers
                if kind != _SOCK_DIAG_BY_FAMILY or len(body) < _UNIX_MESSAGE.size:
                    continue
                inode = _UNIX_MESSAGE.unpack_from(body)[4]
                for attribute, payload in _attributes(body[_UNIX_MESSAGE.size :]):
                    if attribute == _UNIX_DIAG_PEER and len(payload) >= 4:
                        peers[inode] = struct.unpack_from("=I", payload)[0]
            if not data:
                return peers


def _messages(data: bytes) -> Iterator[tuple[int, bytes]]:
    offset = 0
    while offset + _HEADER.size <= len(data):
        length, kind, _, _, _ = _HEADER.unpack_from(data, offset)
        if length < _HEADER.size:
            return
        yield kind, data[offset + _HEADER.size : offset + length]
        offset += (length + 3) & ~3


def _attributes(data: bytes) -> Iterator[tuple[int, bytes]]:
    offset = 0
    while offset + _ATTRIBUTE.size <= len(data):
        length, kind = _ATTRIBUTE.unpack_from(data, offset)
        if length < _ATTRIBUTE.size:
            return
        yield kind, data[offset + _ATTRIBUTE.size : offset + length]
        offset += (length + 3) & ~3


_CLONE_NEWNET = 0x40000000


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, loaded once: each load makes classes of its own (reference cycles),
    and this is asked at every look at a sandboxed bot's CPU time."""
    return ctypes.CDLL(None, use_errno=True)


def _unix_peers_of(pid: int) -> dict[int, int]:
    """`_unix_peers` as seen in `pid`'s network namespace, asked from a thread that enters it.

    Only the asking thread changes namespace (Linux keeps it per thread), and
    the netlink socket stays in the namespace it was made in; the thread ends
    there, so no other code ever runs inside the sandbox's namespace.
    """
    if os.readlink(PROC / str(pid) / "ns" / "net") == os.readlink(PROC / "self" / "ns" / "net"):
        return _unix_peers()
    found: list[dict[int, int] | OSError] = []

    def ask() -> None:
        try:
            fd = os.open(PROC / str(pid) / "ns" / "net", os.O_RDONLY)
            try:
                if _libc().setns(fd, _CLONE_NEWNET) != 0:
                    error = ctypes.get_errno()
                    raise OSError(error, os.strerror(error))
            finally:
                os.close(fd)
            found.append(_unix_peers())
        except OSError as error:
            found.append(error)

    thread = threading.Thread(target=ask, name="cputime-netns", daemon=True)
    thread.start()
    thread.join()
    if isinstance(found[0], OSError):
        raise found[0]
    return found[0]


def _unix_holders(root: int) -> list[int]:
    """Those of `root` and its descendants holding a Unix connection to this process."""
    tree = descendants(root)
    spaces: dict[str, int] = {}  # a process in each of the tree's network namespaces
    for pid in tree:
        with contextlib.suppress(OSError):
            spaces.setdefault(os.readlink(PROC / str(pid) / "ns" / "net"), pid)
    peers: dict[int, int] = {}
    for pid in spaces.values():
        with contextlib.suppress(OSError):
            peers.update(_unix_peers_of(pid))
    ours = {int(link[8:-1]) for link in _sockets("self")}
    wanted = {f"socket:[{peers[inode]}]" for inode in ours if inode in peers}
    return [pid for pid in tree if _sockets(pid) & wanted]


def process_holding(root: int, peer: str, taken: Collection[int] = ()) -> int | None:
    """Which of `root` and its descendants holds the connection grpc names `peer`.

    `peer` is grpc's: "ipv4:127.0.0.1:50312" (the bot's end of a loopback
    connection, whose port is the bot's local port), or "unix:..." for the
    sandbox's socket, where the bot's connected processes not in `taken`
    (answering the bot's other sessions) are the candidates. None if it
    cannot be told.
    """
    if peer.startswith("unix:"):
        holders = _unix_holders(root)
        fresh = [pid for pid in holders if pid not in taken]
        return next(iter(fresh or holders), None)
    if not peer.startswith(("ipv4:", "ipv6:")):
        return None
    try:
        port = int(peer.rpartition(":")[2])
    except ValueError:
        return None
    inode = _socket_inode(port)
    if inode is None:
        return None
    wanted = f"socket:[{inode}]"
    for pid in descendants(root):
        if wanted in _sockets(pid):
            return pid
    return None
