"""`arena bench --ladder` and `arena bench --soak`: their flags and their reports on the
terminal."""

from __future__ import annotations

import argparse
import json
import math

from rich.console import Console

from arena.bots.capacity import default_jobs
from arena.cli import validate
from arena.tournament.config import TournamentError
from arena.tournament.kinds import MAX_TABLE
from bench import ROOT

SAMPLE_BOTS = ROOT / "sample_bots"
"""The clone's sample bots, the soak's entrants unless --soak-bots names others."""


def _minutes(text: str) -> float:
    try:
        minutes = float(text)
    except ValueError:
        minutes = math.nan
    if not (math.isfinite(minutes) and minutes > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes above 0")
    return minutes


def add_flags(bench: argparse.ArgumentParser) -> None:
    ladder = bench.add_argument_group("the ladder's matchmaking on simulated bots (--ladder)")
    ladder.add_argument(
        "--ladder",
        action="store_true",
        help="measure instead the games the ladder's matchmaking (fed TrueSkill, and fed the "
        "batch fit) needs to a sure order, against the round robin's, on simulated bots",
    )
    ladder.add_argument(
        "--ladder-leagues",
        type=validate.int_at_least(2),
        default=8,
        help="simulated leagues each way (default 8, a few minutes)",
    )
    ladder.add_argument(
        "--ladder-bots",
        type=validate.int_between(4, 12),
        default=8,
        help="simulated bots in a league, noise 0 to 1 evenly (default 8)",
    )
    soak = bench.add_argument_group("a league server's ladder played for long (--soak)")
    soak.add_argument(
        "--soak",
        type=_minutes,
        metavar="MINUTES",
        help="instead: a real `arena serve --ladder` with every bot of --soak-bots submitted "
        "plays for MINUTES, its memory, games, faults and gaps watched; exit 1 on a fault, a "
        "hang, a game lost or doubled, or memory growth",
    )
    soak.add_argument(
        "--soak-kill",
        action="store_true",
        help="SIGKILL the server at half time, start it again, and check no game was lost or "
        "doubled",
    )
    soak.add_argument(
        "--soak-bots",
        type=validate.folder,
        metavar="DIR",
        help="the bots to submit, one entrant each (default: the clone's sample_bots/)",
    )
    soak.add_argument(
        "--soak-table-size",
        type=validate.int_between(2, MAX_TABLE),
        default=3,
        help="the ladder's table size (default 3)",
    )
    soak.add_argument(
        "--soak-jobs",
        type=validate.int_at_least(1),
        default=2,
        help="the ladder's games at a time (default 2)",
    )


def cmd_bench_ladder(args: argparse.Namespace, console: Console) -> int:
    from bench.ladder import report, run_ladder

    def say(text: str) -> None:
        Console(stderr=True).print(text, highlight=False, markup=False, soft_wrap=True)

    figures = run_ladder(
        args.ladder_leagues, 1, say, bots=args.ladder_bots, workers=min(2, default_jobs())
    )
    if args.json:
        print(json.dumps(figures.to_json(), indent=2))
        return 0
    for line in report(figures):
        console.print(line, highlight=False, markup=False)
    return 0


def cmd_bench_soak(args: argparse.Namespace, console: Console) -> int:
    """The soak's report; exit 1 when it found anything (each finding a FAIL line)."""
    from bench.soak import SoakSetup, run_soak

    bots = args.soak_bots or SAMPLE_BOTS
    if not bots.is_dir():
        raise TournamentError(f"there is no {bots} (an installed arena): give --soak-bots DIR")

    def say(text: str) -> None:
        Console(stderr=True).print(text, highlight=False, markup=False, soft_wrap=True)

    setup = SoakSetup(args.soak, bots, args.soak_kill, args.soak_table_size, args.soak_jobs)
    figures = run_soak(setup, say)
    if args.json:
        print(json.dumps(figures.to_json(), indent=2))
    else:
        for line in figures.lines():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    return 1 if figures.findings() else 0
