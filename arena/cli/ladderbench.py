"""`arena bench --ladder`: its flags and its report on the terminal."""

from __future__ import annotations

import argparse
import json

from rich.console import Console

from arena.bots.capacity import default_jobs
from arena.cli import validate


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


def cmd_bench_ladder(args: argparse.Namespace, console: Console) -> int:
    from arena.bench.ladder import report, run_ladder

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
