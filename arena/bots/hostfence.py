"""In the launcher: make this machine's own addresses unreachable from a build's network.

slirp4netns carries a build's connections out as this machine's own sockets,
so `--disable-host-loopback` keeps 127.0.0.1 away, but not the machine's
other addresses (192.0.2.2 on eth0, a bridge's 172.17.0.1): a service bound
to every interface (0.0.0.0) would answer a build there. So, before the
build starts, its network namespace gets a `prohibit` route to each address
this machine holds (its kernel's local routes): a connection there fails at
once inside the sandbox, and never reaches slirp4netns. Other machines, the
package registries among them, are reached as before.

A process of the launcher joins the sandbox's user and network namespaces
(whose owner it is, so it may) and adds the routes over netlink; this needs
no program but the kernel's.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import socket
import struct
from pathlib import Path

_CLONE_NEWUSER = 0x10000000
_CLONE_NEWNET = 0x40000000
_RTM_NEWROUTE = 24
_NLMSG_ERROR = 2
_NLM_F_REQUEST_ACK_CREATE_REPLACE = 0x1 | 0x4 | 0x400 | 0x100
_RT_TABLE_MAIN = 254
_RTPROT_STATIC = 4
_RT_SCOPE_UNIVERSE = 0
_RTN_PROHIBIT = 8
_RTA_DST = 1
_FIB_TRIE = Path("/proc/net/fib_trie")


def host_addresses() -> list[str]:
    """The IPv4 addresses this machine holds (the kernel's local /32 routes), but its
    loopback's, which slirp4netns keeps away, and slirp's own network's, which inside
    the sandbox name slirp's gateway and resolver, not this machine."""
    found: list[str] = []
    last = ""
    for line in _FIB_TRIE.read_text().splitlines():
        text = line.strip()
        if text.startswith("|-- "):
            last = text.removeprefix("|-- ")
        elif text == "/32 host LOCAL" and last and last not in found:
            found.append(last)
    return [a for a in found if not a.startswith(("127.", "10.0.2."))]


def fence(user: int, net: int, addresses: list[str]) -> str:
    """Add a `prohibit` route to each of `addresses` in the network namespace `net`
    (owned by the user namespace `user`); "" when done, else why not."""
    pid = os.fork()
    if pid == 0:
        code = 1
        with contextlib.suppress(BaseException):
            code = _fence_here(user, net, addresses)
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return ""
    if code == 2:
        return "cannot join the build's network namespace to fence off this machine's addresses"
    return f"cannot fence off this machine's addresses in the build's network ({code})"


def _fence_here(user: int, net: int, addresses: list[str]) -> int:
    """In a child of the launcher, single-threaded as joining a user namespace needs."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(user, _CLONE_NEWUSER) != 0 or libc.setns(net, _CLONE_NEWNET) != 0:
        return 2
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as link:
        for seq, address in enumerate(addresses, start=1):
            link.send(_prohibit(address, seq))
            reply = link.recv(65536)
            (kind,) = struct.unpack_from("=H", reply, 4)
            (error,) = struct.unpack_from("=i", reply, 16)  # the ack's errno, negated
            if kind != _NLMSG_ERROR or error != 0:
                return 3
    return 0


def _prohibit(address: str, seq: int) -> bytes:
    """RTM_NEWROUTE: `prohibit ADDRESS/32` in the main table."""
    route = struct.pack(
        "=BBBBBBBBI",
        socket.AF_INET,
        32,
        0,
        0,
        _RT_TABLE_MAIN,
        _RTPROT_STATIC,
        _RT_SCOPE_UNIVERSE,
        _RTN_PROHIBIT,
        0,
    )
    destination = struct.pack("=HH", 8, _RTA_DST) + socket.inet_aton(address)
    body = route + destination
    flags = _NLM_F_REQUEST_ACK_CREATE_REPLACE
    header = struct.pack("=IHHII", 16 + len(body), _RTM_NEWROUTE, flags, seq, 0)
    return header + body
