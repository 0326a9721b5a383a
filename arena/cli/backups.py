"""`arena league backup DEST` and `arena league restore SRC`: a season's store kept safe."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from arena.store.backup import Copied, backup, restore
from arena.tournament.config import TournamentError


def _holding(copied: Copied) -> str:
    return (
        f"{copied.tournaments} tournaments, {copied.games} games, {copied.entrants} entrants' "
        f"tokens"
    )


def cmd_backup(args: argparse.Namespace, console: Console) -> int:
    if not args.tournament:
        raise TournamentError("arena league backup needs where to write the copy: DEST")
    copied = backup(args.league, Path(args.tournament))
    console.print(
        f"Backed up {args.league} to {copied.path} ({_holding(copied)}), as it was at one "
        f"moment. The games are in the results folders too: back them up as well (arena "
        f"league rebuild makes a league from them).",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return 0


def cmd_restore(args: argparse.Namespace, console: Console) -> int:
    if not args.tournament:
        raise TournamentError("arena league restore needs the backup to restore: SRC")
    copied = restore(Path(args.tournament), args.league)
    kept = f"; the league it replaced is kept as {copied.set_aside}" if copied.set_aside else ""
    console.print(
        f"Restored {args.tournament} to {copied.path} ({_holding(copied)}){kept}. Games played "
        f"since the backup are in their results folders: arena league check --league "
        f"{copied.path} lists them, arena league rebuild puts them back.",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return 0
