"""`arena bench`, where the clone holds the benchmarks.

The benchmarks measure the arena side by side; they are not part of it, and
the wheel leaves them out (a tenth of the code, of no use to a league
server). A clone installed with `pip install -e .` has them beside the
package, in its top-level `bench/`: `arena bench` is theirs there, and an
installed wheel's `arena bench` says where they are.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from rich.console import Console

from arena.tournament.config import TournamentError

CLONE = Path(__file__).resolve().parents[2]
"""The folder holding the `arena` package: a clone, when `bench/` is beside it."""
ABSENT = (
    "the benchmarks live in the project's clone (its bench/ folder), not in the installed "
    'package: run arena bench from a clone installed with pip install -e ".[dev]"'
)


def _benchmarks() -> ModuleType | None:
    """The benchmarks' command (`bench.cli`), when this package is a clone's."""
    if not (CLONE / "bench" / "cli.py").is_file():
        return None
    if str(CLONE) not in sys.path:
        sys.path.insert(0, str(CLONE))
    import bench.cli

    return bench.cli


def add_command(commands: Any) -> None:
    benchmarks = _benchmarks()
    if benchmarks is not None:
        benchmarks.add_command(commands)
        return
    bench = commands.add_parser("bench", help="measure the arena (in the project's clone)")
    bench.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)


def cmd_bench(args: argparse.Namespace, console: Console) -> int:
    benchmarks = _benchmarks()
    if benchmarks is None:
        raise TournamentError(ABSENT)
    code: int = benchmarks.cmd_bench(args, console)
    return code


COMMANDS = {"bench": cmd_bench}
