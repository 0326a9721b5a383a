"""A build that tries the host's loopback, its abstract sockets and slirp's network, and says
what it reached on one line, `NETPROBE {json}`, in its log.

argv: the host's TCP port on 127.0.0.1, the name of a host abstract Unix socket, and
"ADDRESS:PORT" of a listener on one of the machine's other addresses (or "-").
"""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import sys
from pathlib import Path

_SIOCGIFADDR = 0x8915


def _tcp(host: str, port: int) -> str:
    try:
        with socket.create_connection((host, port), timeout=5):
            return "connected"
    except OSError as error:
        return f"refused: {error}"


def _abstract(name: str) -> str:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(5)
        try:
            client.connect("\0" + name)
            return "connected"
        except OSError as error:
            return f"refused: {error}"


def _address(interface: str) -> str | None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            packed = fcntl.ioctl(
                probe.fileno(), _SIOCGIFADDR, struct.pack("256s", interface.encode())
            )
        except OSError:
            return None
    return socket.inet_ntoa(packed[20:24])


def _gateway() -> str | None:
    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[1] == "00000000":  # the default route
            return socket.inet_ntoa(struct.pack("<I", int(fields[2], 16)))
    return None


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    return host, int(port)


def main() -> None:
    port, name, other = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    resolv = Path("/etc/resolv.conf")
    report = {
        "loopback": _tcp("127.0.0.1", port),
        "gateway_to_host_loopback": _tcp("10.0.2.2", port),
        "abstract": _abstract(name),
        "host_address": None if other == "-" else _tcp(*_split(other)),
        "tap0": _address("tap0"),
        "gateway": _gateway(),
        "resolv": resolv.read_text() if resolv.exists() else None,
    }
    print("NETPROBE " + json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
