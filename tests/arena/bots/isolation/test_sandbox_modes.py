"""--sandbox auto|require|off, the descriptor budget, and local bots on a league server."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from league_harness import league

import arena.bots.isolation.sandbox
from arena.bots.isolation.limits import DescriptorError, check_descriptors, raise_open_files_limit
from arena.bots.isolation.sandbox import SandboxError, SandboxMode, decide
from arena.bots.manifest import BotSpec
from arena.cli.main import main
from arena.records import GameLine
from arena.tournament.config import TournamentConfig
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress, Tournament

ARENA_TESTS = Path(__file__).resolve().parents[2]
GOOD = ARENA_TESTS / "tournament_bots"
MISSING = "bwrap missing: apt install bubblewrap"


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine as one without bubblewrap."""
    monkeypatch.setattr(arena.bots.isolation.sandbox, "_probe", lambda: (None, MISSING))


def _bots(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        shutil.copy(GOOD / "steady.py", folder / f"{name}.py")
    return folder


def test_off_and_a_machine_without_bwrap_are_said_plainly(no_bwrap: None) -> None:
    assert decide(SandboxMode.OFF).describe() == "bots are NOT isolated: --sandbox off"
    auto = decide(SandboxMode.AUTO)
    assert not auto.active
    assert auto.describe() == f"bots are NOT isolated: {MISSING}"
    with pytest.raises(SandboxError, match="apt install bubblewrap"):
        decide(SandboxMode.REQUIRE)


def test_require_refuses_to_start_and_creates_nothing(
    tmp_path: Path, no_bwrap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = _bots(tmp_path / "bots", "one", "two")
    out = tmp_path / "out"
    code = main(["run", "--bots", str(bots), "--out", str(out), "--sandbox", "require"])
    assert code == 1
    assert "--sandbox require, but bwrap missing" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.slow
def test_auto_without_bwrap_plays_and_records_why_the_bots_are_not_isolated(
    tmp_path: Path, no_bwrap: None, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = _bots(tmp_path / "bots", "one", "two")
    out = tmp_path / "out"
    args = ["run", "--bots", str(bots), "--out", str(out), "--name", "t", "--games", "2"]
    assert main(args) == 0
    assert f"bots are NOT isolated: {MISSING}" in capsys.readouterr().out
    info = json.loads((out / "t" / "tournament.json").read_text())
    assert info["isolation"][0] == f"bots are NOT isolated: {MISSING}"
    assert info["status"] == "finished"


def test_the_open_files_limit_is_raised_and_a_field_too_big_for_it_refused() -> None:
    limit = raise_open_files_limit()
    assert limit >= 1024
    spec = BotSpec(name="b", path=GOOD, workdir=GOOD, run=("python", "b.py"), sessions=64)
    check_descriptors([spec] * 2, jobs=8)  # a small field fits
    with pytest.raises(DescriptorError, match=r"ulimit -n \d+"):
        check_descriptors([spec] * (limit // 8), jobs=8)


def test_a_league_servers_local_bots_are_sandboxed_and_cannot_take_an_entrants_name(
    tmp_path: Path,
) -> None:
    if not decide(SandboxMode.AUTO).active:
        pytest.skip(decide(SandboxMode.AUTO).why_not)
    bots = _bots(tmp_path / "local", "alpha", "gamma")

    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            await lg.wait_connected({"alpha": 1, "beta": 1})
            before = lg.server.store.entrants()["alpha"]
            night = await lg.play(
                games=3, table_size=3, jobs=1, bots_dir=str(bots), sandbox="require", name="n"
            )
            assert night.finished.status == "finished"
            notes = night.of("note")
            assert any(n.startswith("alpha: refused: a registered remote entrant") for n in notes)
            assert "bots are sandboxed" in " ".join(night.info()["isolation"])
            assert sorted(night.info()["entrants"]) == ["alpha", "beta", "gamma"]
            assert night.info()["bots"]["alpha"] == {"remote": True}
            assert all(line["faults"] == [] for line in night.lines())
            assert lg.server.store.entrants()["alpha"] == before
            assert await lg.connected() == {"alpha": 1, "beta": 1}  # the remote alpha stays

    asyncio.run(asyncio.wait_for(body(), 120))


class _Recorder:
    def __init__(self, check: Callable[[], bool]) -> None:
        self.notes: list[str] = []
        self.first_game: bool | None = None
        self._check = check

    def note(self, text: str) -> None:
        self.notes.append(text)

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        pass

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        if self.first_game is None:
            self.first_game = self._check()


@pytest.mark.slow  # it waits out the whole connect timeout
def test_a_bot_that_never_connects_is_stopped_at_the_connect_timeout(tmp_path: Path) -> None:
    bots = _bots(tmp_path / "bots", "one", "two")
    pidfile = tmp_path / "mute.pid"
    (bots / "mute.py").write_text(
        f"import os, time\nopen({str(pidfile)!r}, 'w').write(str(os.getpid()))\ntime.sleep(600)\n"
    )

    def mute_gone() -> bool:
        try:
            stat = Path(f"/proc/{int(pidfile.read_text())}/stat").read_text()
        except OSError:
            return True
        return stat.rpartition(")")[2].split()[0] in {"Z", "X"}

    recorder = _Recorder(mute_gone)
    config = TournamentConfig(
        bots_dir=bots,
        out=tmp_path / "out",
        games=2,
        jobs=1,
        connect_timeout=10,  # ample for the good bots to connect on a loaded machine
        name="t",
        sandbox=SandboxMode.OFF,  # so that the mute bot may write its pid where the test looks
    )
    summary = asyncio.run(Tournament(config, recorder).run())
    assert summary.status == "finished"
    assert any(
        "mute: did not connect within 10 s (--connect-timeout); stopped" in n
        for n in recorder.notes
    )
    assert recorder.first_game is True, "the mute bot was still running when play began"
