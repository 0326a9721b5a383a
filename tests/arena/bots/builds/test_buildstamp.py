"""An unchanged bot is not built again; a changed one, or one whose toolchain or build
output changed, is; `--rebuild` builds regardless."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from referee_harness import bot_folder
from tournament_harness import minimal_info

from arena.bots.builds import buildstamp
from arena.bots.builds.build import run_build
from arena.bots.manifest import BotSpec, load_entry
from arena.checkbot.check import Check, check_bot
from arena.tournament.config import TournamentConfig
from arena.tournament.play.lineup import Lineup
from arena.tournament.results.folder import TournamentFolder

BUILD = "#!/bin/sh\nset -e\nmkdir -p bin\necho built >> bin/builds\ncp source.txt bin/made\n"


def _bot(root: Path, build: str = BUILD) -> Path:
    folder = root / "builder"
    folder.mkdir()
    (folder / "build.sh").write_text(build)
    (folder / "source.txt").write_text("version 1\n")
    (folder / "bot.toml").write_text(
        'name = "builder"\nrun = "./bin/made"\nbuild = "sh build.sh"\nrequires = ["sh"]\n'
    )
    return folder


def _spec(folder: Path) -> BotSpec:
    """The bot as the next run finds it."""
    spec = load_entry(folder)
    assert spec is not None
    return spec


def _builds(folder: Path) -> int:
    path = folder / "bin" / "builds"
    return len(path.read_text().split()) if path.exists() else 0


def test_a_good_build_is_remembered_until_the_files_or_outputs_change(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    assert not buildstamp.current(_spec(folder))
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    assert buildstamp.current(_spec(folder))

    (folder / "source.txt").write_text("version 2\n")
    assert not buildstamp.current(_spec(folder))  # a source changed
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    assert buildstamp.current(_spec(folder))

    (folder / "bin" / "made").unlink()
    assert not buildstamp.current(_spec(folder))  # an output is gone: build it again


STALE = ".perudo-build"  # where an older arena kept its stamp, in the bot's folder


def test_the_stamp_is_kept_in_the_arenas_cache_never_in_the_bots_folder(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    stamp = buildstamp.stamp_path(_spec(folder))
    assert stamp.parent == buildstamp.stamps() and stamp.is_file()
    assert sorted(p.name for p in folder.iterdir()) == ["bin", "bot.toml", "build.sh", "source.txt"]
    # The same folder reached through a link has the same stamp.
    (tmp_path / "via").symlink_to(folder)
    assert buildstamp.current(_spec(tmp_path / "via"))


def test_a_stale_stamp_in_the_folder_is_the_bots_own_file(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    before = _spec(folder).files_hash
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    (folder / STALE).write_text('{"key": "anything"}\n')
    assert _spec(folder).files_hash != before  # a file the bot can read: hashed
    assert not buildstamp.current(_spec(folder))  # so the folder changed: built again
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    assert buildstamp.current(_spec(folder))
    assert (folder / STALE).read_text() == '{"key": "anything"}\n'  # never written


def test_a_failed_build_leaves_no_stamp(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    # A failing build that writes a stamp of its own: that is not kept either.
    assert buildstamp.stamp_path(_spec(folder)).exists()
    (folder / "build.sh").write_text(f"echo '{{\"key\": 1}}' > {STALE}; exit 3\n")
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is not None
    assert not buildstamp.stamp_path(_spec(folder)).exists()
    assert not buildstamp.current(_spec(folder))


def test_a_changed_toolchain_is_a_reason_to_build(tmp_path: Path) -> None:
    folder = _bot(tmp_path)
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "mytool").write_text("#!/bin/sh\n")
    (tools / "mytool").chmod(0o755)
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text().replace('["sh"]', f'["sh", "{tools / "mytool"}"]'))
    assert asyncio.run(run_build(_spec(folder), {}, tmp_path / "build.log")) is None
    assert buildstamp.current(_spec(folder))
    (tools / "mytool").write_text("#!/bin/sh\n# a new version\n")
    assert not buildstamp.current(_spec(folder))


class _Notes:
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)

    def building(self, name: str, running: bool) -> None:
        return None

    def started(self, *args: Any) -> None:
        return None

    def game_finished(self, *args: Any) -> None:
        return None


def _prepare(bots: Path, out: Path, rebuild: bool = False) -> list[str]:
    """What a run (or its --resume) says while it gets the bots ready."""
    notes = _Notes()
    lineup = Lineup(TournamentConfig(bots_dir=bots, rebuild=rebuild), notes)
    folder = TournamentFolder(out)
    folder.logs.mkdir(parents=True, exist_ok=True)
    info = minimal_info("t", bots_dir=str(bots))
    asyncio.run(lineup.prepare(folder, info, resuming=False, tokens=_NoTokens(), need=0))
    return notes.notes


class _NoTokens:
    def knows(self, name: str) -> bool:
        return False


def test_a_run_builds_an_unchanged_bot_once_and_rebuild_forces_it(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    folder = _bot(bots)
    first = _prepare(bots, tmp_path / "one")
    assert _builds(folder) == 1 and any(n.startswith("built builder in") for n in first), first
    # The first build says what to expect of it: minutes, once.
    assert f"building builder (up to 300 s; {buildstamp.FIRST_BUILD})" in first, first
    second = _prepare(bots, tmp_path / "two")
    assert _builds(folder) == 1
    assert "builder: unchanged since its last build: not rebuilt" in second
    again = _prepare(bots, tmp_path / "three", rebuild=True)
    assert _builds(folder) == 2
    assert "building builder (up to 300 s)" in again  # built before: no word of minutes
    (folder / "source.txt").write_text("version 2\n")
    _prepare(bots, tmp_path / "four")
    assert _builds(folder) == 3
    assert (folder / "bin" / "made").read_text() == "version 2\n"


@pytest.mark.slow
def test_check_bot_does_not_build_an_unchanged_bot_again(tmp_path: Path) -> None:
    bot_folder(tmp_path, "built", "kit_bot.py", {})
    folder = tmp_path / "built"
    (folder / "build.sh").write_text("mkdir -p bin && echo built >> bin/builds\n")
    toml = folder / "bot.toml"
    toml.write_text(toml.read_text() + 'build = "sh build.sh"\n')

    def build_check(rebuild: bool = False) -> Check:
        checks: list[Check] = []
        result = asyncio.run(check_bot(folder, checks.append, rebuild=rebuild))
        assert result.passed, [c for c in checks if not c.passed]
        [build] = [c for c in checks if c.name == "build"]
        return build

    assert build_check().detail == "sh build.sh"
    assert "not rebuilt" in build_check().detail
    assert _builds(folder) == 1
    assert build_check(rebuild=True).detail == "sh build.sh"
    assert _builds(folder) == 2
