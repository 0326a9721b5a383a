"""`arena verify`: check a finished tournament's dice from its published seed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.tournament.results.verify import verify

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def add_commands(commands: Any) -> None:
    check = commands.add_parser(
        "verify", help="check every deal of a finished tournament against its revealed seed"
    )
    check.add_argument("tournament", help="a tournament folder, or its name under --results")
    check.add_argument(
        "--results",
        type=Path,
        default=Path("results"),
        help="the results folder a tournament's name is looked for in (default results/)",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="an ok line for every game too, not only the failures",
    )


def cmd_verify(args: argparse.Namespace, console: Console) -> int:
    """Failures only, then the verdict: a night of hundreds of games is not hundreds of ok
    lines to scroll past for the one that matters (`-v` prints them all)."""
    folder = Path(args.tournament)
    if not folder.is_dir():
        folder = args.results / args.tournament
    verdict = verify(folder)
    say = console.print
    if not verdict.commitment_ok:
        say("[red]FAIL[/] the seed does not hash to the commitment published before play")
    elif args.verbose:
        say("[green]ok[/]   the seed hashes to the commitment published before play")
    for game in verdict.games:
        if game.pruned:
            if args.verbose:
                say(f"[dim]--[/]   {game.game}: pruned (its replay let go)", highlight=False)
        elif game.problem is None:
            if args.verbose:
                say(
                    f"[green]ok[/]   {game.game}: {game.rounds} deals match the seed",
                    highlight=False,
                )
        else:
            say(f"[red]FAIL[/] {game.game}: ", end="", highlight=False)
            say(game.problem, markup=False, highlight=False)
    for problem in verdict.problems:
        say("[red]FAIL[/] ", end="")
        say(problem, markup=False, highlight=False)
    bad = sum(g.problem is not None for g in verdict.games)
    pruned = sum(g.pruned for g in verdict.games)
    if verdict.ok:
        kept = len(verdict.games) - pruned
        let_go = (
            f" ({pruned} more were pruned: their results stand, their replays were let go)"
            if pruned
            else ""
        )
        say(
            f"{verdict.tournament}: the seed is the one committed to, and every deal of its "
            f"{kept} games is the seed's{let_go}.",
            highlight=False,
        )
        return 0
    say(
        f"[red]{verdict.tournament}: {bad} of {len(verdict.games)} games do not match"
        f"{', and ' + str(len(verdict.problems)) + ' other problems' if verdict.problems else ''}"
        f"{'' if verdict.commitment_ok else ', and the seed is not the one committed to'}.[/]",
        highlight=False,
    )
    return 1


COMMANDS = {"verify": cmd_verify}
