"""Builds that leave traps in their bot's folder, built for real in the sandbox.

Each folder under sandbox_bots/builds is a bot whose build leaves what a hostile
author's would: the arena's old stamp name `.perudo-build` as a link to a file
outside every bot folder or to another entrant's code, or as a named pipe;
links to /dev/zero and to `/`, a pipe, a socket, a 100 GB sparse file; a flood
of output. Each is built under bubblewrap through `run_build` and through a
night's `Lineup` (its first run and the next, which finds it unchanged), and
the arena must write nothing through what the build left, never block on it,
and read a bounded amount of it. The whole `arena run` and `arena check-bot`
are tried at the end, in a slow test.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import TypeVar

import pytest
from tournament_harness import ARENA, Recorder, minimal_info

from arena.bots.builds import buildstamp
from arena.bots.builds.build import run_build
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.bots.manifest import BotSpec, ManifestError, load_entry
from arena.referee.service.auth import TokenBook
from arena.tournament.config import TournamentConfig
from arena.tournament.play.lineup import Lineup
from arena.tournament.results.folder import TournamentFolder

ARENA_TESTS = Path(__file__).resolve().parents[2]
BUILDS = ARENA_TESTS / "sandbox_bots" / "builds"
GOOD = ARENA_TESTS / "tournament_bots" / "steady.py"
LIMIT = 120.0
"""Seconds any one step may take before it counts as a hang: far above what it needs."""
STALE = ".perudo-build"
PRECIOUS = b"the organiser's own file: no build may change it\n"

SANDBOX = decide(SandboxMode.AUTO)
pytestmark = pytest.mark.skipif(not SANDBOX.active, reason=SANDBOX.why_not)
T = TypeVar("T")


def _within(work: Callable[[], T], limit: float = LIMIT) -> T:
    """`work`'s result; a hang fails the test after `limit` seconds rather than holding it
    (an arena blocked in open() on a pipe cannot be interrupted, so it runs in a thread)."""
    future: Future[T] = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, daemon=True).start()
    return future.result(timeout=limit)


def _field(root: Path, *hostile: str) -> Path:
    """A bots folder: a victim, a good bot, and the hostile folders named, each a copy of
    sandbox_bots/builds/<name> with a bot to play and `target` naming the organiser's file."""
    bots = root / "bots"
    (bots / "victim").mkdir(parents=True)
    shutil.copy(GOOD, bots / "victim" / "bot.py")
    (bots / "victim" / "bot.toml").write_text('name = "victim"\nrun = "python bot.py"\n')
    shutil.copy(GOOD, bots / "steady.py")
    (root / "precious.txt").write_bytes(PRECIOUS)
    for name in hostile:
        folder = bots / name
        shutil.copytree(BUILDS / name, folder)
        shutil.copy(GOOD, folder / "bot.py")
        (folder / "target").write_text(str(root / "precious.txt"))
    return bots


def _spec(folder: Path) -> BotSpec:
    spec = load_entry(folder)
    assert spec is not None
    return spec


def _build(folder: Path, log: Path) -> str | None:
    confinement = Confinement(SANDBOX)
    return _within(lambda: asyncio.run(run_build(_spec(folder), {}, log, None, confinement)))


def _prepare(bots: Path, out: Path, rebuild: bool = False) -> list[str]:
    """What a night (its first run, or the next) says while it gets the bots ready."""
    notes = Recorder()
    lineup = Lineup(TournamentConfig(bots_dir=bots, rebuild=rebuild), notes)
    lineup.confinement = Confinement(SANDBOX)
    folder = TournamentFolder(out)
    folder.logs.mkdir(parents=True, exist_ok=True)
    info = minimal_info("t", bots_dir=str(bots))
    prepare = lineup.prepare(folder, info, resuming=False, tokens=TokenBook(), need=0)
    _within(lambda: asyncio.run(prepare))
    return notes.notes


def test_a_stamp_linked_to_a_file_outside_is_never_written_through(tmp_path: Path) -> None:
    bots = _field(tmp_path, "stamp_outside")
    folder = bots / "stamp_outside"
    assert _build(folder, tmp_path / "build.log") is None
    assert os.readlink(folder / STALE) == str(tmp_path / "precious.txt")
    assert (tmp_path / "precious.txt").read_bytes() == PRECIOUS
    assert buildstamp.current(_spec(folder))  # remembered, in the arena's own cache
    notes = _prepare(bots, tmp_path / "next")
    assert "stamp-outside: unchanged since its last build: not rebuilt" in notes
    _prepare(bots, tmp_path / "rebuilt", rebuild=True)
    assert (tmp_path / "precious.txt").read_bytes() == PRECIOUS


def test_a_stamp_linked_to_another_bots_code_is_never_written_through(tmp_path: Path) -> None:
    bots = _field(tmp_path, "stamp_victim")
    victim = _spec(bots / "victim").files_hash
    notes = _prepare(bots, tmp_path / "first")
    assert any(n.startswith("built stamp-victim in") for n in notes), notes
    assert "stamp-victim: unchanged since its last build: not rebuilt" in _prepare(
        bots, tmp_path / "second"
    )
    assert (bots / "victim" / "bot.py").read_bytes() == GOOD.read_bytes()
    assert _spec(bots / "victim").files_hash == victim


def test_a_stamp_left_as_a_named_pipe_holds_nothing_up(tmp_path: Path) -> None:
    bots = _field(tmp_path, "stamp_fifo")
    folder = bots / "stamp_fifo"
    assert _build(folder, tmp_path / "build.log") is None
    assert stat.S_ISFIFO((folder / STALE).lstat().st_mode)
    notes = _prepare(bots, tmp_path / "next")
    assert "stamp-fifo: unchanged since its last build: not rebuilt" in notes


def test_links_pipes_sockets_and_huge_outputs_are_neither_followed_nor_read(
    tmp_path: Path,
) -> None:
    bots = _field(tmp_path, "leftovers")
    folder = bots / "leftovers"
    before = _spec(folder).files_hash
    assert _build(folder, tmp_path / "build.log") is None, (tmp_path / "build.log").read_text()
    kinds = {p.name: stat.S_IFMT(p.lstat().st_mode) for p in folder.iterdir()}
    assert kinds["zero"] == kinds["everything"] == stat.S_IFLNK
    assert kinds["pipe"] == stat.S_IFIFO and kinds["sock"] == stat.S_IFSOCK
    assert (folder / "bin" / "huge").stat().st_size == 100 << 30
    after = _spec(folder).files_hash
    assert after != before  # the links are the bot's files now, hashed by what they hold
    (folder / "zero").unlink()
    (folder / "zero").symlink_to("/dev/null")
    assert _spec(folder).files_hash not in {before, after}
    notes = _prepare(bots, tmp_path / "next")
    assert any(n.startswith("built leftovers in") for n in notes), notes
    assert "leftovers: unchanged since its last build: not rebuilt" in _prepare(
        bots, tmp_path / "again"
    )


def test_a_100_gb_file_among_the_bots_own_files_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    bots = _field(tmp_path, "sparse")
    folder = bots / "sparse"
    failure = _build(folder, tmp_path / "build.log")
    assert failure is not None
    assert "more than 1024 MiB of files to hash (model.bin is 102400 MiB)" in failure
    unloadable = BotSpec(name="sparse", path=folder, workdir=folder, run=("true",))
    assert not buildstamp.stamp_path(unloadable).exists()  # not remembered as built
    with pytest.raises(ManifestError, match=r"model\.bin is 102400 MiB"):
        _within(lambda: load_entry(folder))
    notes = _prepare(bots, tmp_path / "next")
    assert any(n.startswith("sparse: skipped: sparse holds more than") for n in notes), notes


def test_a_flooding_build_is_capped_and_the_arena_goes_on(tmp_path: Path) -> None:
    """The build floods until the test, a task on the arena's own event loop, has seen it
    send 16 times the cap: a loop the drain stalled would never get there, and the build
    would end at its timeout instead of failing with its own last line."""
    bots = _field(tmp_path, "flood")
    folder = bots / "flood"
    log = tmp_path / "flood.build.log"
    cap = ResourceLimits().log_bytes
    lags: list[float] = []

    async def watch() -> None:
        sent = folder / "sent"
        while not (sent.exists() and int(sent.read_text() or 0) > 16 * cap):
            began = time.monotonic()
            await asyncio.sleep(0.01)
            lags.append(time.monotonic() - began - 0.01)
        (folder / "stop").touch()

    async def scenario() -> str | None:
        build = asyncio.ensure_future(
            run_build(_spec(folder), {}, log, ResourceLimits(), Confinement(SANDBOX))
        )
        await watch()
        return await build

    began, cpu = time.monotonic(), time.process_time()
    failure = _within(lambda: asyncio.run(scenario()), limit=600)
    took, cpu = time.monotonic() - began, time.process_time() - cpu
    sent = int((folder / "sent").read_text())
    text = log.read_bytes()
    print(
        f"flood: {sent >> 20} MiB in {took:.1f} s, the arena's CPU {cpu / took:.0%} of a core, "
        f"log {len(text)} bytes, the loop's longest lag {max(lags) * 1000:.1f} ms "
        f"over {len(lags)} ticks"
    )
    assert failure is not None and "exit code 7" in failure, failure
    assert failure.endswith(f"error: the reason it failed, after {sent} bytes")
    cut = text[cap:].decode()
    assert cut.startswith(f"\n[log capped at {cap} bytes: ") and cut.endswith(" dropped]\n")
    dropped = int(cut.split(": ")[1].split()[0])
    assert dropped > 15 * cap and len(text) == cap + len(cut)


def test_a_build_filling_its_disk_is_stopped_at_the_floor(tmp_path: Path) -> None:
    """The build writes its folder a megabyte at a time for as long as it is let. The
    floor is put 64 MiB below the disk's free space, so the build is stopped near it: the
    disk is never filled, whatever else shares it."""
    bots = _field(tmp_path, "disk_filler")
    folder = bots / "disk_filler"
    disk = os.statvfs(folder)
    free_mb = disk.f_bavail * disk.f_frsize // (1024 * 1024)
    limits = ResourceLimits(build_disk_floor_mb=free_mb - 64)
    confinement = Confinement(SANDBOX)
    log = tmp_path / "filler.build.log"
    failure = _within(
        lambda: asyncio.run(run_build(_spec(folder), {}, log, limits, confinement)), limit=600
    )
    written = sum(1 for p in folder.iterdir() if p.name.startswith("junk"))
    print(f"disk filler: stopped after {written} MiB of its own files")
    assert failure is not None
    assert failure.startswith(f"the build was stopped: the disk of {folder}"), failure
    assert failure.endswith(f"has less than {free_mb - 64} MiB free")
    assert written < 100_000  # stopped long before it was done
    assert not buildstamp.current(_spec(folder))


@pytest.mark.slow
def test_a_night_its_next_run_and_check_bot_write_nothing_through_a_build(
    tmp_path: Path,
) -> None:
    """The real commands, each as the organiser runs it, in a process of its own: a night,
    the next night, the first one's --resume, and check-bot."""
    hostile = ("stamp_outside", "stamp_victim", "stamp_fifo", "leftovers", "sparse")
    bots = _field(tmp_path, *hostile)
    out = tmp_path / "out"

    def arena(*args: str) -> str:
        done = subprocess.run(
            [str(ARENA) if ARENA.exists() else sys.executable, *args],
            capture_output=True,
            text=True,
            timeout=600,  # a hang fails here
            check=False,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    night = ("run", "--bots", str(bots), "--out", str(out), "--games", "4", "--jobs", "2")
    first = arena(*night, "--name", "one", "--sandbox", "require", "--move-time", "2")
    assert "sparse: skipped: the build left a folder the arena will not use" in first
    second = arena(*night, "--name", "two", "--sandbox", "require", "--move-time", "2")
    # Night one again, as if stopped after its first game: its --resume.
    info = json.loads((out / "one" / "tournament.json").read_text())
    info.update(status="interrupted", seed=None)
    (out / "one" / "tournament.json").write_text(json.dumps(info))
    games = (out / "one" / "games.jsonl").read_text().splitlines(keepends=True)
    (out / "one" / "games.jsonl").write_text(games[0])
    arena("league", "remove", "one", "--league", str(out / "league.sqlite"))  # as advised
    resumed = arena("run", "--resume", str(out / "one"), "--sandbox", "require")
    for said in (second, resumed):
        for name in ("stamp-outside", "stamp-victim", "stamp-fifo", "leftovers"):
            assert f"{name}: unchanged since its last build: not rebuilt" in said, said
    assert len((out / "one" / "games.jsonl").read_text().splitlines()) == len(games)
    check = arena("check-bot", str(bots / "stamp_outside"), "--sandbox", "require", "--rebuild")
    assert "0 failed" in check, check
    assert (tmp_path / "precious.txt").read_bytes() == PRECIOUS
    assert (bots / "victim" / "bot.py").read_bytes() == GOOD.read_bytes()
