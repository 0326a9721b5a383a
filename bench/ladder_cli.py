"""`arena bench ladder` and `arena bench soak`: their flags and their runs."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.bots.run.capacity import default_jobs
from arena.cli import validate
from arena.tournament.config import TournamentError
from arena.tournament.kinds import MAX_TABLE
from bench import ROOT

if TYPE_CHECKING:
    from bench.ladder import LadderFigures
    from bench.soak_figures import SoakFigures

SAMPLE_BOTS = ROOT / "sample_bots"
"""The clone's sample bots, the soak's entrants unless --bots names others."""


def _minutes(text: str) -> float:
    try:
        minutes = float(text)
    except ValueError:
        minutes = math.nan
    if not (math.isfinite(minutes) and minutes > 0):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of minutes above 0")
    return minutes


def add_ladder_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--leagues",
        type=validate.int_at_least(2),
        default=8,
        help="simulated leagues each way (default 8, a few minutes)",
    )
    bench.add_argument(
        "--bots",
        type=validate.int_between(4, 12),
        default=8,
        help="simulated bots in a league, noise 0 to 1 evenly (default 8)",
    )


def add_soak_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "minutes",
        type=_minutes,
        metavar="MINUTES",
        help="a real `arena serve --ladder` with every bot of --bots submitted plays for "
        "MINUTES, its memory, games, faults and gaps watched; exit 1 on a fault, a hang, a game "
        "lost or doubled, or memory growth",
    )
    bench.add_argument(
        "--kill",
        action="store_true",
        help="SIGKILL the server at half time, start it again, and check no game was lost or "
        "doubled",
    )
    bench.add_argument(
        "--bots",
        type=validate.folder,
        metavar="DIR",
        help="the bots to submit, one entrant each (default: the clone's sample_bots/)",
    )
    bench.add_argument(
        "--table-size",
        type=validate.int_between(2, MAX_TABLE),
        default=3,
        help="the ladder's table size (default 3)",
    )
    bench.add_argument(
        "--jobs",
        type=validate.int_at_least(1),
        default=2,
        help="the ladder's games at a time (default 2)",
    )


def run_ladder(args: argparse.Namespace, say: Callable[[str], None]) -> LadderFigures:
    from bench import ladder

    return ladder.run_ladder(args.leagues, 1, say, bots=args.bots, workers=min(2, default_jobs()))


def run_soak(args: argparse.Namespace, say: Callable[[str], None]) -> SoakFigures:
    """The soak's figures: `arena bench` exits 1 when they hold findings (each a FAIL line)."""
    from bench import soak

    bots = args.bots or SAMPLE_BOTS
    if not bots.is_dir():
        raise TournamentError(f"there is no {bots} (an installed arena): give --bots DIR")
    return soak.run_soak(
        soak.SoakSetup(args.minutes, bots, args.kill, args.table_size, args.jobs), say
    )
