"""`arena league export`: every game of the league as one JSON line on standard output or in a
file (`arena.league.season.export`), what went wrong said on standard error."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from rich.console import Console

from arena.cli.upkeep import own_results
from arena.league.season.export import Chosen, export
from arena.text import printable

if TYPE_CHECKING:
    import argparse


def cmd_export(args: argparse.Namespace, console: Console) -> int:
    results = args.results or [own_results(args.league)]
    chosen = Chosen(
        ladder=True if args.ladder else False if args.nights else None,
        since=args.since,
        author=args.author,
    )
    if args.to is None:
        done = export(args.league, results, chosen, sys.stdout)
    else:
        with args.to.open("w", encoding="utf-8") as out:
            done = export(args.league, results, chosen, out)
    said = Console(stderr=True)  # standard output is the games'
    for problem in done.problems:
        said.print(f"! {printable(problem)}", highlight=False, markup=False, style="yellow")
    where = f" to {args.to}" if args.to is not None else ""
    let_go = f" ({done.pruned} more were pruned: no replay to export)" if done.pruned else ""
    said.print(f"Exported {done.games} games{where}{let_go}.", highlight=False)
    return 1 if done.problems else 0
