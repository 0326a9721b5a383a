"""In the sandbox, everything but the capped /tmp (and a build's folder and caches) is
read-only: a bot that writes to /, /run, /etc, /var or /root is refused, as bwrap's
root would otherwise take up to half the machine's memory."""

from __future__ import annotations

import errno
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.sandbox import Jail, SandboxMode, decide

sandboxed = pytest.mark.skipif(
    not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not
)
SCRATCH_MB = 4

TRY_WRITES = """
import errno, json, os, sys
found = {}
for place in json.loads(sys.argv[1]):
    try:
        if os.path.isdir(place):
            with open(os.path.join(place, "probe"), "wb") as out:
                out.write(b"x" * 4096)
        else:
            os.makedirs(place)
        found[place] = "written"
    except OSError as error:
        found[place] = errno.errorcode.get(error.errno, str(error.errno))
try:
    with open("/tmp/fill", "wb") as out:
        for _ in range(int(sys.argv[2])):
            out.write(b"x" * (1 << 20))
            out.flush()
    found["/tmp/fill"] = "written"
except OSError as error:
    found["/tmp/fill"] = errno.errorcode.get(error.errno, str(error.errno))
print(json.dumps(found))
"""
OUTSIDE_TMP = ["/", "/run", "/run/perudo", "/etc", "/var", "/var/lib", "/root", "/usr", "/home"]


def _run(jail: Jail, places: list[str], fill_mb: int) -> dict[str, Any]:
    bwrap = decide(SandboxMode.REQUIRE, BuildNetwork.OFF).bwrap
    assert bwrap is not None
    command = [sys.executable, "-c", TRY_WRITES, json.dumps(places), str(fill_mb)]
    done = subprocess.run(
        jail.command(bwrap, command),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={"PATH": "/usr/bin:/bin", "HOME": "/tmp"},
    )
    assert done.returncode == 0, done.stderr
    found: dict[str, Any] = json.loads(done.stdout)
    return found


@sandboxed
def test_a_bot_writes_nowhere_but_its_capped_tmp(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    with socket.socket(socket.AF_UNIX) as referee:  # bound at /run/perudo, as in a night
        referee.bind(str(tmp_path / "referee.sock"))
        jail = Jail(
            home=folder, workdir=folder, scratch_mb=SCRATCH_MB, socket=tmp_path / "referee.sock"
        )
        found = _run(jail, [*OUTSIDE_TMP, str(folder), "/var/tmp"], SCRATCH_MB * 2)
    for place in OUTSIDE_TMP:
        assert found[place] == errno.errorcode[errno.EROFS], (place, found)
    assert found[str(folder)] == errno.errorcode[errno.EROFS]  # its own folder: read-only
    assert found["/var/tmp"] == "written"  # the same capped scratch as /tmp
    assert found["/tmp/fill"] == errno.errorcode[errno.ENOSPC]  # the cap, not the memory
    assert list(folder.iterdir()) == []


@sandboxed
def test_a_build_writes_its_folder_and_caches_and_nothing_else(tmp_path: Path) -> None:
    folder, cache = tmp_path / "bot", tmp_path / "cache"
    folder.mkdir()
    cache.mkdir()
    jail = Jail(
        home=folder,
        workdir=folder,
        scratch_mb=SCRATCH_MB,
        writable=True,
        caches=((cache, Path("/tmp/cache-seen")),),
    )
    found = _run(jail, [*OUTSIDE_TMP, str(folder), "/tmp/cache-seen"], 1)
    for place in OUTSIDE_TMP:
        assert found[place] == errno.errorcode[errno.EROFS], (place, found)
    assert found[str(folder)] == "written"
    assert found["/tmp/cache-seen"] == "written"
    assert found["/tmp/fill"] == "written"
    assert (folder / "probe").stat().st_size == 4096
    assert (cache / "probe").stat().st_size == 4096
