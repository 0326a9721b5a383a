"""`arena bench season`: its flags and its run."""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arena.cli import validate

if TYPE_CHECKING:
    from bench.season import SeasonFigures


def add_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--games",
        type=validate.int_at_least(30),
        default=1_000_000,
        metavar="N",
        help="games to record (default 1,000,000: about an hour on a quiet machine; the "
        "looks are at each of 10k, 100k and 1M it reaches, and at N)",
    )
    bench.add_argument(
        "--folder",
        type=Path,
        metavar="DIR",
        help="record into DIR (kept) rather than a temporary folder (removed)",
    )


def run(args: argparse.Namespace, say: Callable[[str], None]) -> SeasonFigures:
    """The season's figures: `arena bench` exits 1 when a goal was missed at the largest
    size (its findings)."""
    from bench.season import run_season

    if args.folder is not None:
        args.folder.mkdir(parents=True, exist_ok=True)
        return run_season(args.folder, args.games, say)
    with tempfile.TemporaryDirectory(prefix="arena-season-") as folder:
        return run_season(Path(folder), args.games, say)
