"""`arena verify`: check a finished tournament's dice from its published seed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.tournament.results.verify import verify


def add_commands(commands: Any) -> None:
    check = commands.add_parser(
        "verify", help="check every deal of a finished tournament against its revealed seed"
    )
    check.add_argument("tournament", help="a tournament folder, or its name under --results")
    check.add_argument("--results", type=Path, default=Path("results"))


def cmd_verify(args: argparse.Namespace, console: Console) -> int:
    folder = Path(args.tournament)
    if not folder.is_dir():
        folder = args.results / args.tournament
    verdict = verify(folder)
    say = console.print
    if verdict.commitment_ok:
        say("[green]ok[/]   the seed hashes to the commitment published before play")
    else:
        say("[red]FAIL[/] the seed does not hash to the commitment published before play")
    for game in verdict.games:
        if game.problem is None:
            say(f"[green]ok[/]   {game.game}: {game.rounds} deals match the seed", highlight=False)
        else:
            say(f"[red]FAIL[/] {game.game}: ", end="", highlight=False)
            say(game.problem, markup=False, highlight=False)
    for problem in verdict.problems:
        say("[red]FAIL[/] ", end="")
        say(problem, markup=False, highlight=False)
    bad = sum(g.problem is not None for g in verdict.games)
    if verdict.ok:
        say(f"{verdict.tournament}: every deal of its {len(verdict.games)} games is the seed's.")
        return 0
    say(
        f"[red]{verdict.tournament}: {bad} of {len(verdict.games)} games do not match"
        f"{', and ' + str(len(verdict.problems)) + ' other problems' if verdict.problems else ''}"
        f"{'' if verdict.commitment_ok else ', and the seed is not the one committed to'}.[/]",
        highlight=False,
    )
    return 1


COMMANDS = {"verify": cmd_verify}
