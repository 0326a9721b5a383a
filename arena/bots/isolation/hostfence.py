"""In the launcher: make this machine's addresses, and link-local ones, unreachable from a build.

slirp4netns carries a build's connections out as this machine's own sockets,
so `--disable-host-loopback` keeps 127.0.0.1 away, but not the machine's
other addresses (192.0.2.2 on eth0, a bridge's 172.17.0.1, its IPv6 ones):
a service bound to every interface (0.0.0.0, ::) would answer a build there.
Nor the link-local networks, 169.254.0.0/16 and fe80::/10, where a cloud
machine's metadata service (169.254.169.254) hands out its credentials. So,
before the build starts, its network namespace gets a `prohibit` route to
each address this machine holds (its kernel's local IPv4 routes, and the
IPv6 addresses of /proc/net/if_inet6) and to both link-local networks: a
connection there fails at once inside the sandbox ("permission denied"), and
never reaches slirp4netns. Other machines, the package registries among
them, are reached as before.

A process of the launcher joins the sandbox's user and network namespaces
(whose owner it is, so it may) and adds the routes over netlink; this needs
no program but the kernel's.
"""

from __future__ import annotations

import contextlib
import ctypes
import ipaddress
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
_IF_INET6 = Path("/proc/net/if_inet6")
Network = ipaddress.IPv4Network | ipaddress.IPv6Network
LINK_LOCAL: tuple[Network, ...] = (
    ipaddress.IPv4Network("169.254.0.0/16"),
    ipaddress.IPv6Network("fe80::/10"),
)
"""Never a build's: a cloud's metadata service answers at 169.254.169.254."""
_SLIRPS_OWN = ipaddress.IPv4Network("10.0.2.0/24")
"""In the sandbox, slirp's gateway and resolver, not this machine."""


def host_addresses() -> list[str]:
    """The addresses this machine holds, IPv4 first (the kernel's local /32 routes, then
    /proc/net/if_inet6), but its loopback's, which slirp4netns keeps away, slirp's own
    network's, and link-local ones, which `LINK_LOCAL` fences whole."""
    found: list[str] = []
    last = ""
    for line in _FIB_TRIE.read_text().splitlines():
        text = line.strip()
        if text.startswith("|-- "):
            last = text.removeprefix("|-- ")
        elif text == "/32 host LOCAL" and last and last not in found:
            found.append(last)
    with contextlib.suppress(OSError):  # a kernel without IPv6
        for line in _IF_INET6.read_text().splitlines():
            address = str(ipaddress.IPv6Address(int(line.split()[0], 16)))
            if address not in found:
                found.append(address)
    return [a for a in found if not _reached_otherwise(ipaddress.ip_address(a))]


def _reached_otherwise(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if address.is_loopback or address.is_link_local:
        return True
    return isinstance(address, ipaddress.IPv4Address) and address in _SLIRPS_OWN


def fenced() -> list[Network]:
    """What a build's network is fenced off from: each of this machine's addresses and
    the link-local networks; IPv6 ones only where this kernel has IPv6."""
    networks = [ipaddress.ip_network(a) for a in host_addresses()] + list(LINK_LOCAL)
    if not _IF_INET6.exists():
        networks = [n for n in networks if n.version == 4]
    return networks


def fence(user: int, net: int, networks: list[Network]) -> str:
    """Add a `prohibit` route to each of `networks` in the network namespace `net`
    (owned by the user namespace `user`); "" when done, else why not."""
    pid = os.fork()
    if pid == 0:
        code = 1
        with contextlib.suppress(BaseException):
            code = _fence_here(user, net, networks)
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return ""
    if code == 2:
        return "cannot join the build's network namespace to fence off this machine's addresses"
    return f"cannot fence off this machine's addresses in the build's network ({code})"


def _fence_here(user: int, net: int, networks: list[Network]) -> int:
    """In a child of the launcher, single-threaded as joining a user namespace needs."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(user, _CLONE_NEWUSER) != 0 or libc.setns(net, _CLONE_NEWNET) != 0:
        return 2
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE) as link:
        for seq, network in enumerate(networks, start=1):
            link.send(_prohibit(network, seq))
            reply = link.recv(65536)
            (kind,) = struct.unpack_from("=H", reply, 4)
            (error,) = struct.unpack_from("=i", reply, 16)  # the ack's errno, negated
            if kind != _NLMSG_ERROR or error != 0:
                return 3
    return 0


def _prohibit(network: Network, seq: int) -> bytes:
    """RTM_NEWROUTE: `prohibit NETWORK` in the main table."""
    family = socket.AF_INET if network.version == 4 else socket.AF_INET6
    route = struct.pack(
        "=BBBBBBBBI",
        family,
        network.prefixlen,
        0,
        0,
        _RT_TABLE_MAIN,
        _RTPROT_STATIC,
        _RT_SCOPE_UNIVERSE,
        _RTN_PROHIBIT,
        0,
    )
    packed = network.network_address.packed
    destination = struct.pack("=HH", 4 + len(packed), _RTA_DST) + packed
    body = route + destination
    flags = _NLM_F_REQUEST_ACK_CREATE_REPLACE
    header = struct.pack("=IHHII", 16 + len(body), _RTM_NEWROUTE, flags, seq, 0)
    return header + body
