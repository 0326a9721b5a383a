"""`arena bench --rankings`: its flags and its report on the terminal."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.console import Console

from arena.cli import validate

if TYPE_CHECKING:
    import argparse

RESAMPLES = 100
"""Bootstrap copies at each look while a simulated tournament is not yet sure: enough to
tell 95% from much less, and a third of the leaderboard's cost."""


def add_flags(bench: argparse.ArgumentParser) -> None:
    ranking = bench.add_argument_group("rankings measured on simulated bots (--rankings)")
    ranking.add_argument(
        "--rankings",
        action="store_true",
        help="measure instead how many games the batch fit and TrueSkill need to find the "
        "true order, on fresh dice and on disjoint deals, and how honest the intervals are",
    )
    ranking.add_argument(
        "--rankings-tournaments",
        type=validate.int_at_least(2),
        default=8,
        help="simulated tournaments per design (default 8)",
    )
    ranking.add_argument(
        "--rankings-units",
        type=validate.int_at_least(1),
        default=24,
        help="units (every table in every rotation, 60 games) per tournament (default 24)",
    )


def cmd_bench_rankings(args: argparse.Namespace, console: Console) -> int:
    from bench.rankings import report, run_rankings

    def say(text: str) -> None:
        Console(stderr=True).print(text, highlight=False, markup=False)

    figures = run_rankings(args.rankings_tournaments, args.rankings_units, RESAMPLES, 1, say)
    if args.json:
        print(json.dumps(figures.to_json(), indent=2))
        return 0
    for line in report(figures):
        console.print(line, highlight=False, markup=False)
    return 0
