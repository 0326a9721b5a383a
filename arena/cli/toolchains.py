"""`--toolchains FILE`: the organiser's toolchain table, over the arena's (`arena.bots.toolchains`).

The table is read where a bot's programs are looked up and its sandbox is made:
in this process, and in the processes it starts (a league server's submission
worker, which builds and checks a stranger's bot). So the flag is kept as the
variable every one of them reads, `ARENA_TOOLCHAINS`, once the file is read
and found usable: a wrong file stops the command before any bot is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots.toolchains import VARIABLE, use

if TYPE_CHECKING:
    import argparse


def add_toolchains_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--toolchains",
        type=Path,
        metavar="FILE",
        help="a TOML file of toolchains that adds to or replaces the arena's table (what a "
        f"bot's `requires` may name, and what of this machine each shows it; or {VARIABLE})",
    )


def apply(args: argparse.Namespace) -> None:
    """Use the command's `--toolchains`, else `ARENA_TOOLCHAINS`: refused now if unusable."""
    if hasattr(args, "toolchains"):
        use(args.toolchains)
