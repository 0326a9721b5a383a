"""A season of a league's own folder for the archive's tests: a night played for real
(`truth_harness.night`), twice in a league store beside it, and a ladder secret."""

from __future__ import annotations

import shutil
from pathlib import Path

from truth_harness import enter, write_info

from arena.league.ladder.rounds import SECRET_FILE
from arena.store import recorded


def season(night: Path, tmp: Path) -> Path:
    """A league of its own folder: the night as played (finished, its seed revealed), again
    as a second night and as a ladder round (the same games under their names), and the
    ladder's secret."""
    folder = tmp / "league"
    league = folder / "league.sqlite"
    for name in ("night", "night2", "ladder-000001"):
        shutil.copytree(night, folder / name)
        write_info(folder / name, id=name, league=recorded(league))
        enter(league, folder / name)
    (folder / SECRET_FILE).write_text("ab" * 32 + "\n")
    (folder / SECRET_FILE).chmod(0o600)
    return league
