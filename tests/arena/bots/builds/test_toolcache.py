"""A sandboxed build writes the arena's copies of the toolchain caches, never the organiser's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from arena.bots.builds.build import run_build
from arena.bots.builds.toolcache import build_tools
from arena.bots.isolation.limits import Confinement
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.manifest import load_entry


@pytest.fixture
def organiser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An organiser's home with caches and a credential in it."""
    home = tmp_path / "home"
    (home / ".cargo" / "registry" / "index").mkdir(parents=True)
    (home / ".cargo" / "credentials.toml").write_text('[registry]\ntoken = "secret"\n')
    (home / ".cache" / "go-build").mkdir(parents=True)
    (home / ".cache" / "go-build" / "entry").write_text("trusted\n")
    for name in ("GOMODCACHE", "GOCACHE", "CARGO_HOME", "NPM_CONFIG_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(home))
    return home


def test_the_copies_keep_the_caches_and_leave_the_credentials(organiser: Path) -> None:
    tools = build_tools(sandboxed=True)
    copies = {seen: copy for copy, seen in tools.writable}
    # Seen where the organiser's are (Go keys its cache by source paths), but copies.
    assert tools.env["CARGO_HOME"] == str(organiser / ".cargo")
    cargo = copies[organiser / ".cargo"]
    assert organiser / ".cache" / "perudo-arena" in cargo.parents
    assert (cargo / "registry" / "index").is_dir()
    assert not (cargo / "credentials.toml").exists()
    assert (copies[Path(tools.env["GOCACHE"])] / "entry").read_text() == "trusted\n"
    assert all(organiser / ".cache" / "perudo-arena" in c.parents for c in copies.values())
    unsandboxed = build_tools(sandboxed=False)
    assert unsandboxed.env["CARGO_HOME"] == str(organiser / ".cargo")


def test_a_sandboxed_build_can_neither_read_credentials_nor_poison_the_organisers_cache(
    tmp_path: Path, organiser: Path
) -> None:
    sandbox = decide(SandboxMode.AUTO)
    if not sandbox.active:
        pytest.skip(sandbox.why_not)
    bot = tmp_path / "bot"
    bot.mkdir()
    secret = organiser / ".cargo" / "credentials.toml"
    (bot / "build.sh").write_text(
        f"cat {secret} > stolen.txt 2>&1 || true\n"
        'echo poisoned > "$GOCACHE/entry"\n'
        f"echo poisoned > {organiser}/.cache/go-build/entry 2> tried.txt || true\n"
    )
    (bot / "bot.toml").write_text(
        'name = "builder"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
    )
    spec = load_entry(bot)
    assert spec is not None
    failure = asyncio.run(
        run_build(spec, {}, tmp_path / "build.log", confinement=Confinement(sandbox))
    )
    assert failure is None, (tmp_path / "build.log").read_text()
    assert "secret" not in (bot / "stolen.txt").read_text()
    assert (organiser / ".cache" / "go-build" / "entry").read_text() == "trusted\n"
    copy = organiser / ".cache" / "perudo-arena" / "builds" / "gocache" / "entry"
    assert copy.read_text() == "poisoned\n"  # only the arena's own copy, for sandboxed builds
