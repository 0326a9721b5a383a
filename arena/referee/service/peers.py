"""A client's address, as the server counts it when it refuses the client.

gRPC names a peer "ipv4:203.0.113.7:5000", "ipv6:[2001:db8::1]:5000" or
"unix:..."; aiohttp names it "203.0.113.7" or "2001:db8::1". What a refused
client is counted by (its refusals in the log, its failed logins) is its
address without the port, and for IPv6 its /64: one machine is commonly given
a whole /64, and a client that took a new address for each try would
otherwise be a new stranger each time, with a fresh count.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

PeerOf = Callable[[Any], str]
"""What names a gRPC call's client (given its ServicerContext): gRPC's own `context.peer()`,
or, for a call that came through the referee's front door, the bot's address behind it
(`Referee.peer`)."""


def grpc_peer_of(context: Any) -> str:
    """The client gRPC names for a call: the other end of its connection."""
    peer: str = context.peer()
    return peer


def peer_host(peer: str) -> str:
    """The address part of grpc's peer string ("ipv4:127.0.0.1:5000" -> "ipv4:127.0.0.1")."""
    return peer.rpartition(":")[0] or peer


def counted_as(address: str) -> str:
    """What a client at `address` (gRPC's, without its port, or a bare one) is counted by:
    an IPv6 address's /64 ("ipv6:[2001:db8::1]" -> "ipv6:[2001:db8::/64]"), an IPv4 one
    mapped into IPv6 as the IPv4 one, any other as it is."""
    scheme, bare = ("ipv6:", address[5:]) if address.startswith("ipv6:") else ("", address)
    try:
        parsed = ipaddress.ip_address(bare.strip("[]"))
    except ValueError:
        return address
    if not isinstance(parsed, ipaddress.IPv6Address):
        return address
    if parsed.ipv4_mapped is not None:
        return f"ipv4:{parsed.ipv4_mapped}" if scheme else str(parsed.ipv4_mapped)
    network = ipaddress.IPv6Network((parsed, 64), strict=False)
    return f"ipv6:[{network}]" if scheme else str(network)
