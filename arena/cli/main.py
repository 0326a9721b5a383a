"""`arena`: run tournaments, read the league, replay games, benchmark, check bots.

The top parser, the dispatch to each command's module and the errors said in one line:
each command is declared, and run, in a module of its own."""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console
from rich.text import Text

from arena.cli import (
    ab,
    admin,
    author,
    bench,
    board,
    check_bot,
    league,
    play,
    replay,
    request,
    run,
    serve,
    submit,
    token,
    toolchains,
    validate,
    verify,
)
from arena.errors import ArenaError
from arena.text import printable
from engine import PerudoError


def _parser() -> argparse.ArgumentParser:
    parser = validate.OneLineParser(
        prog="arena", description="Perudo Arena: bot tournaments with TrueSkill."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run.add_command(commands)
    board.add_command(commands)
    author.add_command(commands)
    play.add_command(commands)

    bench.add_command(commands)
    check_bot.add_command(commands)

    serve.add_command(commands)
    token.add_command(commands)
    admin.add_command(commands)
    league.add_command(commands)
    submit.add_command(commands)
    request.add_command(commands)
    verify.add_commands(commands)
    ab.add_command(commands)

    replay.add_command(commands)
    return parser


COMMANDS = {
    **bench.COMMANDS,
    **ab.COMMANDS,
    **serve.COMMANDS,
    **token.COMMANDS,
    **admin.COMMANDS,
    **league.COMMANDS,
    **verify.COMMANDS,
    **submit.COMMANDS,
    **request.COMMANDS,
    **author.COMMANDS,
    **run.COMMANDS,
    **check_bot.COMMANDS,
    "leaderboard": board.cmd_leaderboard,
    "replay": replay.cmd_replay,
    "play": play.cmd_play,
}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # Off a terminal rich assumes 80 columns, too narrow for the leaderboard.
    console = Console(width=None if sys.stdout.isatty() else 132)
    errors = Console(stderr=True, width=None if sys.stderr.isatty() else 132)
    try:
        toolchains.apply(args)
        return COMMANDS[args.command](args, console)
    except (ArenaError, PerudoError) as error:
        # One line however long (soft_wrap), and the message as plain text: it may quote a bot.
        errors.print(
            Text.assemble((f"arena {args.command}:", "red"), " ", printable(str(error))),
            soft_wrap=True,
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
