"""A night's builds as the line-up says them: the time a build has is the organiser's cap
where the manifest asks for more."""

from __future__ import annotations

import asyncio
from pathlib import Path

from tournament_harness import Recorder, minimal_info

from arena.bots.isolation.sandbox import SandboxMode
from arena.referee.service.auth import TokenBook
from arena.tournament.config import TournamentConfig
from arena.tournament.play.lineup import Lineup
from arena.tournament.results.folder import TournamentFolder


def test_a_build_is_announced_with_the_time_it_really_has(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    (bots / "slowpoke").mkdir(parents=True)
    (bots / "slowpoke" / "bot.toml").write_text(
        'name = "slowpoke"\nrun = "python bot.py"\nbuild = "true"\nbuild_timeout = 1000000\n'
    )
    (bots / "slowpoke" / "bot.py").write_text("")
    notes = Recorder()
    config = TournamentConfig(bots_dir=bots, sandbox=SandboxMode.OFF, build_timeout=20)
    lineup = Lineup(config, notes)
    folder = TournamentFolder(tmp_path / "out")
    folder.logs.mkdir(parents=True)
    info = minimal_info("t", bots_dir=str(bots))
    asyncio.run(lineup.prepare(folder, info, resuming=False, tokens=TokenBook(), need=0))
    building = [n for n in notes.notes if n.startswith("building slowpoke")]
    assert building and building[0].startswith("building slowpoke (up to 20 s"), notes.notes
