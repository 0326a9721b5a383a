"""`arena bench --season`: its flags and its report on the terminal."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from rich.console import Console

from arena.cli import validate


def add_flags(bench: argparse.ArgumentParser) -> None:
    season = bench.add_argument_group("a season's ladder on disk and what is looked at (--season)")
    season.add_argument(
        "--season",
        action="store_true",
        help="instead: a simulated week of ladder rounds through the league server's recorder, "
        "store and day records; bytes and files a game, and the time of the ladder's board, a "
        "replay by id, an author's games and `arena league check`, at 10k, 100k and 1M games",
    )
    season.add_argument(
        "--season-games",
        type=validate.int_at_least(30),
        default=1_000_000,
        metavar="N",
        help="games to record (default 1,000,000: about an hour on a quiet machine; the "
        "looks are at each of 10k, 100k and 1M it reaches, and at N)",
    )
    season.add_argument(
        "--season-folder",
        type=Path,
        metavar="DIR",
        help="record into DIR (kept) rather than a temporary folder (removed)",
    )


def cmd_bench_season(args: argparse.Namespace, console: Console) -> int:
    """The season's figures; exit 1 when a goal was missed at the largest size."""
    from arena.bench.season import run_season

    def say(text: str) -> None:
        Console(stderr=True).print(text, highlight=False, markup=False, soft_wrap=True)

    if args.season_folder is not None:
        args.season_folder.mkdir(parents=True, exist_ok=True)
        figures = run_season(args.season_folder, args.season_games, say)
    else:
        with tempfile.TemporaryDirectory(prefix="arena-season-") as folder:
            figures = run_season(Path(folder), args.season_games, say)
    if args.json:
        print(json.dumps(figures.to_json(), indent=2))
    else:
        for line in figures.lines():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    return 1 if figures.findings() else 0
