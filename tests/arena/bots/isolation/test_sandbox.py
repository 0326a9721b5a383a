"""The sandbox, tried as a hostile entrant would, through the real `arena run`.

One sandboxed tournament (shared by the tests of this module) seats a hostile
bot beside two good ones; the hostile bot tries each attack before it plays
and reports what it got in its log. Each test asserts that one attack failed,
that the hostile bot still played, and that the good bots' games were clean.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.bots.isolation.sandbox import SandboxMode, decide

ARENA_TESTS = Path(__file__).resolve().parents[2]
BOTS = ARENA_TESTS / "sandbox_bots"
GOOD = ARENA_TESTS / "tournament_bots" / "steady.py"
SCRATCH_MB = 64  # ResourceLimits().scratch_mb
NPROC = 512  # ResourceLimits().nproc

sandboxed = pytest.mark.skipif(
    not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not
)


@dataclass(frozen=True)
class Night:
    folder: Path
    bots: Path
    code: int
    output: str

    def log(self, name: str) -> str:
        return (self.folder / "logs" / f"{name}.log").read_text(errors="replace")

    def lines(self) -> list[dict[str, Any]]:
        text = (self.folder / "games.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def report(self) -> dict[str, Any]:
        for line in self.log("hostile").splitlines():
            if line.startswith("HOSTILE "):
                found: dict[str, Any] = json.loads(line.removeprefix("HOSTILE "))
                return found
        raise AssertionError(f"the hostile bot reported nothing: {self.log('hostile')}")


def _victim(bots: Path) -> Path:
    victim = bots / "victim"
    victim.mkdir()
    shutil.copy(GOOD, victim / "bot.py")
    (victim / "secret.txt").write_text("the victim's strategy\n")
    # A build that leaves a sleeper behind: it must not outlive the build.
    (victim / "build.sh").write_text("sleep 300 &\necho built\n")
    (victim / "bot.toml").write_text(
        'name = "victim"\nrun = "python bot.py"\nbuild = "sh build.sh"\nsessions = 2\n'
    )
    return victim


def _field(root: Path, hostile: str, targets: dict[str, Any]) -> Path:
    bots = root / "bots"
    bots.mkdir()
    folder = bots / "hostile"
    folder.mkdir()
    shutil.copy(BOTS / f"{hostile}.py", folder / "bot.py")
    (folder / "bot.toml").write_text('name = "hostile"\nrun = "python bot.py"\nsessions = 1\n')
    _victim(bots)
    shutil.copy(GOOD, bots / "steady.py")
    (folder / "targets.json").write_text(json.dumps({**targets, "victim": str(bots / "victim")}))
    return bots


def _night(root: Path, hostile: str, sandbox: str, listener: int) -> Night:
    out = root / "out"
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    targets = {
        "seed": str(out / "night" / "seed.secret"),
        "league": str(out / "league.sqlite"),
        "bots": str(root / "bots"),
        "port": listener,
        "pid_max": max(pids) + 5000,
        "fill_mb": SCRATCH_MB * 3,
        "forks": NPROC * 2,
    }
    bots = _field(root, hostile, targets)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "arena.cli.main",
            "run",
            "--bots",
            str(bots),
            "--out",
            str(out),
            "--name",
            "night",
            "--games",
            "6",
            "--jobs",
            "3",
            "--force-jobs",  # more games than cores on purpose: the bots' sessions all in use
            "--move-time",
            "2",
            "--connect-timeout",
            "60",
            "--sandbox",
            sandbox,
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return Night(out / "night", bots, done.returncode, done.stdout + done.stderr)


@pytest.fixture(scope="module")
def listener() -> Iterator[int]:
    """A loopback TCP port that is not the referee's: nothing sandboxed may reach it."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory, listener: int) -> Night:
    if not decide(SandboxMode.AUTO).active:
        pytest.skip(decide(SandboxMode.AUTO).why_not)
    return _night(tmp_path_factory.mktemp("sandboxed"), "hostile", "require", listener)


@sandboxed
def test_the_night_finishes_and_says_the_bots_are_sandboxed(night: Night) -> None:
    assert night.code == 0, night.output
    assert "bots are sandboxed" in night.output
    builds = decide(SandboxMode.AUTO).builds.describe()  # which network the builds get
    assert builds in night.output
    info = json.loads((night.folder / "tournament.json").read_text())
    assert any("bots are sandboxed" in line for line in info["isolation"])
    assert builds in info["isolation"]
    assert sorted(info["entrants"]) == ["hostile", "steady", "victim"]


@sandboxed
def test_the_hostile_bot_played_and_the_good_bots_games_were_clean(night: Night) -> None:
    lines = night.lines()
    assert len(lines) >= 6
    assert all("hostile" in line["players"] for line in lines)
    assert all(line["faults"] == [] for line in lines), [line["faults"] for line in lines]


@sandboxed
def test_it_cannot_read_the_seed_or_the_league_store(night: Night) -> None:
    report = night.report()
    seed = night.folder / "seed.secret"
    assert not seed.exists() or seed.read_text().strip() not in str(report["seed"])
    assert str(report["seed"]).startswith("error:"), report["seed"]
    assert str(report["league"]).startswith("error:"), report["league"]


@sandboxed
def test_it_cannot_see_another_bots_folder(night: Night) -> None:
    report = night.report()
    assert report["victim_listing"] == [] or str(report["victim_listing"]).startswith("error:")
    assert str(report["victim_secret"]).startswith("error:"), report["victim_secret"]
    # The bots folder shows its own folder at most, never the others.
    listing = report["bots_listing"]
    assert isinstance(listing, str) or set(listing) <= {"hostile", "victim"}, listing
    assert not (night.bots / "hostile" / "planted.txt").exists()
    assert report["disk"]["own_folder"].startswith("error:")


@sandboxed
def test_it_cannot_read_another_bots_environment(night: Night) -> None:
    assert night.report()["foreign_tokens"] == []


@sandboxed
def test_it_cannot_see_signal_or_trace_another_process(night: Night) -> None:
    report = night.report()
    assert report["signalled"] == []
    assert report["traced"] == []


@sandboxed
def test_it_cannot_connect_anywhere_but_the_referee(night: Night) -> None:
    report = night.report()
    assert report["loopback"].startswith("refused"), report["loopback"]
    # Unreachable, not timed out: an empty network namespace has no route at all.
    assert report["remote"].startswith("refused: ENETUNREACH"), report["remote"]


@sandboxed
def test_it_cannot_fill_the_disk_beyond_its_scratch(night: Night) -> None:
    disk = night.report()["disk"]
    assert disk["mb"] <= SCRATCH_MB
    assert disk["outcome"] == "No space left on device"


@sandboxed
def test_it_cannot_fork_past_its_limit(night: Night) -> None:
    assert night.report()["forks"] < NPROC


@sandboxed
def test_nothing_it_or_a_build_started_outlives_the_night(night: Night) -> None:
    assert _lingering(night.bots, 10.0) == []


@sandboxed
@pytest.mark.slow
def test_without_the_sandbox_the_same_seed_reader_succeeds(tmp_path: Path, listener: int) -> None:
    """The control: proves the sandbox, not some accident, is what stops the bot above."""
    off = _night(tmp_path, "seed_reader", "off", listener)
    assert off.code == 0, off.output
    assert "bots are NOT isolated: --sandbox off" in off.output
    seed = json.loads((off.folder / "tournament.json").read_text())["seed"]
    assert f"SEED {seed}" in off.log("hostile")


def _lingering(folder: Path, seconds: float) -> list[str]:
    """Processes whose command line or working folder is under `folder`, after a wait."""
    deadline = time.monotonic() + seconds
    while True:
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
                cwd = os.readlink(entry / "cwd")
            except OSError:
                continue
            if str(folder) in cmdline or cwd.startswith(str(folder)):
                found.append(f"{entry.name}: {cmdline[:120]} (in {cwd})")
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def _kill_mid(root: Path, phase: str, sandbox: str) -> list[str]:
    """Start `arena run`, SIGKILL it during `phase`, and list what it left running."""
    bots = root / "bots"
    bots.mkdir(parents=True)
    for name in ("one", "two"):  # kit bots with session copies: processes of their own
        folder = bots / name
        folder.mkdir()
        shutil.copy(GOOD, folder / "bot.py")
        build = 'build = "sh build.sh"\n' if phase == "build" else ""
        (folder / "build.sh").write_text("echo building\nsleep 300\n")
        (folder / "bot.toml").write_text(
            f'name = "{name}"\nrun = "python bot.py"\nsessions = 3\n{build}'
        )
    out = root / "out"
    arena = subprocess.Popen(
        [
            *(sys.executable, "-m", "arena.cli.main", "run", "--bots", str(bots)),
            *(
                "--out",
                str(out),
                "--name",
                "night",
                "--games",
                "200",
                "--jobs",
                "3",
                "--force-jobs",
            ),
            *("--sandbox", sandbox),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        logs = out / "night" / "logs"
        if phase == "build":
            ready = lambda: all(  # noqa: E731
                "building" in _text(logs / f"{n}.build.log") for n in ("one", "two")
            )
        else:
            ready = lambda: _text(out / "night" / "games.jsonl").count("\n") >= 1  # noqa: E731
        deadline = time.monotonic() + 60
        while not ready():
            assert arena.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline, f"no {phase} within 60 s"
            time.sleep(0.02)
        assert _lingering(bots, 0) != [], "nothing was running to be orphaned"
    finally:
        arena.kill()
        arena.wait()
    return _lingering(bots, 5.0)


def _text(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["build", "play"])
@pytest.mark.parametrize("sandbox", ["require", "off"])
def test_after_a_sigkill_of_the_arena_nothing_it_started_lives_on(
    tmp_path: Path, phase: str, sandbox: str
) -> None:
    if sandbox == "require" and not decide(SandboxMode.AUTO).active:
        pytest.skip(decide(SandboxMode.AUTO).why_not)
    assert _kill_mid(tmp_path, phase, sandbox) == []
