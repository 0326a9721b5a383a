"""`arena bench rankings`: its flags and its run."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from arena.cli import validate

if TYPE_CHECKING:
    from bench.rankings import RankingFigures

RESAMPLES = 100
"""Bootstrap copies at each look while a simulated tournament is not yet sure: enough to
tell 95% from much less, and a third of the leaderboard's cost."""


def add_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--tournaments",
        type=validate.int_at_least(2),
        default=8,
        help="simulated tournaments per design (default 8)",
    )
    bench.add_argument(
        "--units",
        type=validate.int_at_least(1),
        default=24,
        help="units (every table in every rotation, 60 games) per tournament (default 24)",
    )


def run(args: argparse.Namespace, say: Callable[[str], None]) -> RankingFigures:
    from bench.rankings import run_rankings

    return run_rankings(args.tournaments, args.units, RESAMPLES, 1, say)
