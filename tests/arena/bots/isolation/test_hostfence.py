"""The build fence: a real sandboxed build (real bwrap, real slirp4netns) cannot reach
link-local addresses (a cloud's metadata service) nor any of this machine's own, IPv6
included, even where a service listens on every interface (0.0.0.0 and ::)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.bots.builds.build import run_build
from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.hostfence import LINK_LOCAL, fenced, host_addresses
from arena.bots.isolation.limits import Confinement
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.manifest import load_entry

isolated = pytest.mark.skipif(
    decide(SandboxMode.AUTO).builds.mode is not BuildNetwork.ISOLATED,
    reason=decide(SandboxMode.AUTO).builds.describe(),
)
PROBE = """
import json, socket, sys
from pathlib import Path

def tcp(host, port):
    try:
        with socket.create_connection((host, int(port)), timeout=5):
            return "connected"
    except OSError as error:
        return f"refused: errno {error.errno}"

report = {"metadata": tcp("169.254.169.254", 80)}
for target in sys.argv[1:]:
    host, _, port = target.rpartition(":")
    report[host] = tcp(host, port)
routes = Path("/proc/net/ipv6_route")
report["ipv6_routes"] = routes.read_text() if routes.exists() else ""
print("FENCE " + json.dumps(report), flush=True)
"""


@pytest.fixture
def everywhere() -> Iterator[int]:
    """A service listening on every interface, IPv4 and IPv6 (`::`, dual-stack): its port."""
    with socket.socket(socket.AF_INET6) as listener:
        listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        listener.bind(("::", 0))
        listener.listen()
        yield listener.getsockname()[1]


def _fence_report(tmp_path: Path, targets: list[str]) -> dict[str, Any]:
    bot = tmp_path / "bot"
    bot.mkdir()
    (bot / "probe.py").write_text(PROBE)
    (bot / "bot.py").write_text("")
    (bot / "bot.toml").write_text(
        f'name = "fence"\nrun = "python bot.py"\nbuild = "python probe.py {" ".join(targets)}"\n'
    )
    spec = load_entry(bot)
    assert spec is not None
    log = tmp_path / "build.log"
    confinement = Confinement(decide(SandboxMode.REQUIRE, BuildNetwork.ISOLATED), strict=True)
    failure = asyncio.run(run_build(spec, {}, log, confinement=confinement))
    text = log.read_text(errors="replace")
    assert failure is None, text
    line = next((x for x in text.splitlines() if x.startswith("FENCE ")), None)
    assert line is not None, text
    report: dict[str, Any] = json.loads(line.removeprefix("FENCE "))
    return report


def _prohibited(routes: str, network: ipaddress.IPv6Network) -> bool:
    """Whether /proc/net/ipv6_route holds a reject route (RTF_REJECT) to `network`."""
    for line in routes.splitlines():
        fields = line.split()
        if (
            int(fields[0], 16) == int(network.network_address)
            and int(fields[1], 16) == network.prefixlen
            and int(fields[8], 16) & 0x0200
        ):
            return True
    return False


@isolated
def test_a_build_reaches_neither_link_local_nor_any_address_of_this_machine(
    tmp_path: Path, everywhere: int
) -> None:
    own = host_addresses()
    targets = [f"{a}:{everywhere}" for a in own]
    report = _fence_report(tmp_path, targets)
    # Prohibited inside the sandbox: "permission denied" at once, never slirp's time-out.
    assert report["metadata"] == "refused: errno 13"
    for address in own:
        assert report[address].startswith("refused"), report
    for address in [a for a in own if ":" in a]:
        assert _prohibited(report["ipv6_routes"], ipaddress.IPv6Network(address)), report
    if Path("/proc/net/if_inet6").exists():
        assert _prohibited(report["ipv6_routes"], ipaddress.IPv6Network("fe80::/10")), report


def test_this_machines_ipv6_addresses_are_among_those_fenced() -> None:
    path = Path("/proc/net/if_inet6")
    if not path.exists():
        pytest.skip("no IPv6 on this kernel")
    global_ones = [
        ipaddress.IPv6Address(int(line.split()[0], 16)) for line in path.read_text().splitlines()
    ]
    mine = [a for a in global_ones if not a.is_loopback and not a.is_link_local]
    networks = fenced()
    for address in mine:
        assert ipaddress.IPv6Network(address) in networks
    assert all(n in networks for n in LINK_LOCAL)
    assert not any(n.version == 6 and n.network_address.is_loopback for n in networks)
