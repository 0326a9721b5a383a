"""--build-network: a real build (real bwrap, real slirp4netns) tries the host's loopback, a
host abstract Unix socket and slirp's own network, in each mode.

The network rule of the suite holds: nothing here leaves the machine. That an
isolated build reaches the outside world is shown by its interface (tap0 up,
slirp's address, its gateway and resolver); the slow builds of the sample
bots (tests/sample_bots) fetch for real.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import secrets
import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import arena.bots.isolation.sandbox
from arena.bots.builds.build import run_build
from arena.bots.builds.toolcache import build_tools
from arena.bots.isolation.buildnet import BuildNet, BuildNetwork
from arena.bots.isolation.environment import bot_environment
from arena.bots.isolation.hostfence import host_addresses
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.manifest import load_entry, resolve_command
from arena.bots.run.spawn import launch_command

PROBE = Path(__file__).resolve().parents[2] / "sandbox_bots" / "net_probe.py"

sandboxed = pytest.mark.skipif(
    not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not
)
isolated = pytest.mark.skipif(
    decide(SandboxMode.AUTO).builds.mode is not BuildNetwork.ISOLATED,
    reason=decide(SandboxMode.AUTO).builds.describe(),
)


Listeners = tuple[int, str, str]


@pytest.fixture(scope="module")
def listeners() -> Iterator[Listeners]:
    """What listens on this machine, which no build may reach: a TCP listener on its
    127.0.0.1, a host abstract Unix socket, and a TCP listener on another of its own
    addresses (a service bound to every interface answers there), when it has one."""
    name = f"perudo-test-{secrets.token_hex(6)}"
    addresses = host_addresses()
    with (
        socket.socket() as tcp,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix,
        socket.socket() as other,
    ):
        tcp.bind(("127.0.0.1", 0))
        tcp.listen()
        unix.bind("\0" + name)
        unix.listen()
        where = "-"
        if addresses:
            other.bind((addresses[0], 0))
            other.listen()
            where = f"{addresses[0]}:{other.getsockname()[1]}"
        yield tcp.getsockname()[1], name, where


def _probe_bot(folder: Path, listeners: Listeners) -> Path:
    folder.mkdir()
    shutil.copy(PROBE, folder / "probe.py")
    (folder / "bot.py").write_text("")
    port, name, other = listeners
    (folder / "bot.toml").write_text(
        f'name = "probe"\nrun = "python bot.py"\nbuild = "python probe.py {port} {name} {other}"\n'
    )
    return folder


def _build(folder: Path, network: BuildNetwork) -> dict[str, Any]:
    spec = load_entry(folder)
    assert spec is not None
    log = folder.parent / "build.log"
    confinement = Confinement(decide(SandboxMode.REQUIRE, network))
    failure = asyncio.run(run_build(spec, {}, log, confinement=confinement))
    text = log.read_text(errors="replace")
    assert failure is None, text
    for line in text.splitlines():
        if line.startswith("NETPROBE "):
            found: dict[str, Any] = json.loads(line.removeprefix("NETPROBE "))
            return found
    raise AssertionError(f"the probe said nothing: {text}")


@sandboxed
@isolated
def test_an_isolated_build_has_slirps_network_and_not_the_hosts(
    tmp_path: Path, listeners: Listeners
) -> None:
    report = _build(_probe_bot(tmp_path / "bot", listeners), BuildNetwork.ISOLATED)
    assert report["loopback"].startswith("refused")
    assert report["gateway_to_host_loopback"].startswith("refused")  # slirp's way to the host
    assert report["abstract"].startswith("refused")
    assert report["host_address"] is None or report["host_address"].startswith("refused")
    assert report["tap0"] == "10.0.2.100"
    assert report["gateway"] == "10.0.2.2"
    assert report["resolv"].split()[:2] == ["nameserver", "10.0.2.3"]


@sandboxed
def test_a_build_without_network_reaches_nothing(tmp_path: Path, listeners: Listeners) -> None:
    report = _build(_probe_bot(tmp_path / "bot", listeners), BuildNetwork.OFF)
    assert report["loopback"].startswith("refused")
    assert report["abstract"].startswith("refused")
    assert report["tap0"] is None
    assert report["gateway"] is None


@sandboxed
def test_the_host_network_on_purpose_reaches_the_hosts_loopback(
    tmp_path: Path, listeners: Listeners
) -> None:
    """The probe can tell: what the other modes refuse, the host's network reaches."""
    report = _build(_probe_bot(tmp_path / "bot", listeners), BuildNetwork.HOST)
    assert report["loopback"] == "connected"
    assert report["abstract"] == "connected"
    assert report["host_address"] in (None, "connected")
    assert "WARNING" in decide(SandboxMode.REQUIRE, BuildNetwork.HOST).network.describe()


def _slirps_of(marker: str) -> list[int]:
    """The slirp4netns processes started for builds whose environment holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != "slirp4netns":
                continue
            if marker.encode() in (entry / "environ").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


@sandboxed
@isolated
def test_slirp_ends_with_the_build(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(
        'name = "sleeper"\nrun = "python bot.py"\nbuild = "sh -c \'sleep 300 & echo built\'"\n'
    )
    spec = load_entry(folder)
    assert spec is not None
    marker = f"PERUDO_TEST_MARK={secrets.token_hex(8)}"
    key, value = marker.split("=")
    confinement = Confinement(decide(SandboxMode.REQUIRE, BuildNetwork.ISOLATED))
    failure = asyncio.run(
        run_build(spec, {key: value}, tmp_path / "build.log", confinement=confinement)
    )
    assert failure is None
    assert _slirps_of(marker) == []


def test_a_machine_without_slirp4netns_builds_with_no_network_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    missing = "slirp4netns missing: apt install slirp4netns"
    monkeypatch.setattr(
        arena.bots.isolation.sandbox, "_probe_slirp", lambda _bwrap: (None, missing)
    )
    monkeypatch.setattr(arena.bots.isolation.sandbox, "_probe", lambda: ("/usr/bin/bwrap", ""))
    network = decide(SandboxMode.REQUIRE).network
    assert network.mode is BuildNetwork.OFF
    assert network.describe() == (
        "builds have NO network: --build-network isolated, but slirp4netns missing: "
        "apt install slirp4netns"
    )


@sandboxed
@isolated
def test_what_slirp_adds_to_a_builds_start(tmp_path: Path) -> None:
    """Not an assertion on time: the figure, printed (pytest -s), for the record."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text('name = "quick"\nrun = "python bot.py"\nbuild = "true"\n')
    spec = load_entry(folder)
    assert spec is not None
    took: dict[BuildNetwork, float] = {}
    for network in (BuildNetwork.OFF, BuildNetwork.ISOLATED) * 5:
        confinement = Confinement(decide(SandboxMode.REQUIRE, network))
        start = time.perf_counter()
        failure = asyncio.run(run_build(spec, {}, tmp_path / "build.log", confinement=confinement))
        took[network] = min(took.get(network, 1e9), time.perf_counter() - start)
        assert failure is None
    added = (took[BuildNetwork.ISOLATED] - took[BuildNetwork.OFF]) * 1000
    print(
        f"\nbuild start, best of 5: off {took[BuildNetwork.OFF] * 1000:.0f} ms, isolated "
        f"{took[BuildNetwork.ISOLATED] * 1000:.0f} ms: slirp4netns adds {added:.0f} ms"
    )


def _processes_of(marker: str) -> list[int]:
    """Every process (bwrap, the build, slirp4netns) whose environment holds `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _wait_for(check: Callable[[], bool], limit: float = 60.0) -> bool:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


@sandboxed
@isolated
def test_after_a_sigkill_of_the_launcher_nothing_of_the_build_lives_on(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(
        'name = "sleeper"\nrun = "python bot.py"\n'
        "build = \"sh -c 'echo started > started; sleep 300'\"\n"
    )
    spec = load_entry(folder)
    assert spec is not None and spec.build is not None
    sandbox = decide(SandboxMode.REQUIRE, BuildNetwork.ISOLATED)
    tools = build_tools(True)
    command = launch_command(
        spec, resolve_command(spec.build), ResourceLimits(), Confinement(sandbox), None, tools
    )
    marker = f"PERUDO_TEST_MARK={secrets.token_hex(8)}"
    key, value = marker.split("=")
    env = bot_environment({**tools.env, key: value}, True)
    with subprocess.Popen(command, cwd=folder, env=env, start_new_session=True) as launcher:
        assert _wait_for((folder / "started").exists), "the build never started"
        assert _slirps_of(marker), "no slirp4netns for the build"
        launcher.kill()
        launcher.wait()
    assert _wait_for(lambda: not _processes_of(marker)), _processes_of(marker)


@sandboxed
def test_a_slirp_that_cannot_attach_fails_the_build_before_it_runs(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(
        'name = "never"\nrun = "python bot.py"\nbuild = "sh -c \'echo ran > ran\'"\n'
    )
    spec = load_entry(folder)
    assert spec is not None
    sandbox = decide(SandboxMode.REQUIRE, BuildNetwork.OFF)
    broken = BuildNet(BuildNetwork.ISOLATED, shutil.which("false"))
    confinement = Confinement(dataclasses.replace(sandbox, network=broken))
    log = tmp_path / "build.log"
    failure = asyncio.run(run_build(spec, {}, log, confinement=confinement))
    assert failure is not None
    assert "slirp4netns could not attach" in log.read_text()
    assert not (folder / "ran").exists()


@sandboxed
@isolated
def test_a_build_out_of_time_leaves_nothing_behind(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("")
    (folder / "bot.toml").write_text(
        'name = "slow"\nrun = "python bot.py"\nbuild = "sleep 300"\nbuild_timeout = 2\n'
    )
    spec = load_entry(folder)
    assert spec is not None
    marker = f"PERUDO_TEST_MARK={secrets.token_hex(8)}"
    key, value = marker.split("=")
    confinement = Confinement(decide(SandboxMode.REQUIRE, BuildNetwork.ISOLATED))
    failure = asyncio.run(
        run_build(spec, {key: value}, tmp_path / "build.log", confinement=confinement)
    )
    assert failure is not None and "longer than 2 s" in failure
    assert _wait_for(lambda: not _processes_of(marker)), _processes_of(marker)
