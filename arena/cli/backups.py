"""`arena league backup DEST` and `arena league restore SRC`: a season's store kept safe."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.store.backup import Copied, backup, restore
from arena.tournament.config import TournamentError

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def _holding(copied: Copied) -> str:
    return (
        f"{copied.tournaments} tournaments, {copied.games} games, {copied.entrants} entrants' "
        f"tokens"
    )


def cmd_backup(args: argparse.Namespace, console: Console) -> int:
    if not args.dest:
        raise TournamentError("arena league backup needs where to write the copy: DEST")
    copied = backup(args.league, Path(args.dest))
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
    if not args.source:
        raise TournamentError("arena league restore needs the backup to restore: SRC")
    copied = restore(Path(args.source), args.league)
    kept = f"; the league it replaced is kept as {copied.set_aside}" if copied.set_aside else ""
    # The commands whole, with the results folders: a rebuild that reads the wrong folder
    # finds no tournament of this league and rebuilds nothing.
    results = args.results or [copied.path.parent]
    flags = f"--league {copied.path}" + "".join(f" --results {r}" for r in results)
    unsure = (
        ""
        if args.results
        else f" ({results[0]} is the league's own folder: if the server's --out is another, "
        f"give that one with --results)"
    )
    console.print(
        f"Restored {args.source} to {copied.path} ({_holding(copied)}){kept}. Games played "
        f"since the backup are in their results folders: `arena league check {flags}` lists "
        f"them, `arena league rebuild {flags}` puts them back{unsure}.",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return 0
