"""`arena league ACTION`: the league store beside its results: checked, rebuilt, a tournament
taken out, backed up, restored, exported, pruned and archived.

Each action is a sub-command with its own flags (`arena league check --help` says `--full`, not
the export's filters), all of them with `--league`. `--league` and `--results` are declared on
`arena league` itself too, so that they may still be given before the action's name, as they
could when the action was a positional choice. The actions are run by `arena.cli.upkeep`
(check, rebuild, remove, prune), `arena.cli.backups`, `arena.cli.exports` and
`arena.cli.archives`.

The league server itself is `arena serve` (`arena.cli.serve`), its entrants `arena token`
(`arena.cli.token`), and `arena admin`, which talks to a running server, `arena.cli.admin`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli import archives, backups, exports, upkeep, validate
from arena.cli.admin import DEFAULT_LEAGUE, LEAGUE
from arena.tournament.config import TournamentError

ACTIONS = {
    "check": "compare the store with the results folders, every difference on a line",
    "rebuild": "make the store again from the results folders",
    "remove": "take a tournament out of the store (its folder is left as it is)",
    "backup": "copy the store out, as it is at one moment",
    "restore": "put a backup back in place of the store, or a season archive (--to) into a "
    "new folder",
    "export": "every game as a JSON line, its replay's fields",
    "prune": "let old replays and logs go, the results kept",
    "archive": "the whole season (store, results, submissions, ladder secret) in one file, "
    "or check one (--check)",
}
"""Each action of `arena league`, said in `arena league --help`."""

READ = "a results folder to read (repeatable; default: the league's own folder)"
"""What --results is to the actions that read the folders."""


def add_command(commands: Any) -> None:
    """`arena league ACTION`: a sub-command for each action, each with its own flags."""
    league = commands.add_parser(
        "league",
        help="compare the league store with the results folders, repair it, take a "
        "tournament out, back it up or restore it",
        description="The league store beside its results folders. Every action takes --league; "
        "--league and --results may come here or after the action's name.",
    )
    _add_where(
        league,
        "the results folders to read, or the one a restore's advice names "
        "(repeatable; default: the league's own folder)",
        defaults=True,
    )
    actions = league.add_subparsers(dest="action", required=True, metavar="ACTION")

    check = _action(actions, "check", READ)
    check.add_argument(
        "--full",
        action="store_true",
        help="compare every game and read every page of an SQLite store, not only what "
        "changed since the last check that agreed",
    )
    _action(actions, "rebuild", READ)
    remove = _action(actions, "remove")
    remove.add_argument("tournament", nargs="?", metavar="TOURNAMENT", help="its id")
    backup = _action(actions, "backup")
    backup.add_argument(
        "dest", nargs="?", metavar="DEST", help="where to write the copy: a new file or a folder"
    )
    restore = _action(
        actions,
        "restore",
        "the results folder the advice printed after a restore names (repeatable; default: "
        "the league's own folder)",
    )
    restore.add_argument(
        "source", nargs="?", metavar="SRC", help="a backup, or with --to a season archive"
    )
    restore.add_argument(
        "--to",
        type=Path,
        metavar="PATH",
        help="the new folder to restore a season archive into",
    )

    export = _action(actions, "export", READ)
    kinds = export.add_mutually_exclusive_group()
    kinds.add_argument("--ladder", action="store_true", help="the ladder's rounds only")
    kinds.add_argument("--nights", action="store_true", help="the league nights only")
    export.add_argument(
        "--since",
        type=validate.moment,
        metavar="WHEN",
        help="games that began then or later (2026-12-01, or 2026-12-01T18:00, local time)",
    )
    export.add_argument("--author", metavar="NAME", help="the games NAME played in")
    export.add_argument(
        "--to",
        type=Path,
        metavar="PATH",
        help="write to the file PATH (default: standard output)",
    )

    prune = _action(actions, "prune", READ)
    prune.add_argument(
        "--before",
        type=validate.moment,
        metavar="WHEN",
        help="the replays and logs of games that began before then (2026-11-01, local time); "
        "the results, ratings and every later game stay",
    )

    archive = _action(
        actions,
        "archive",
        "the one results folder to archive, the server's (default: the league's own folder)",
    )
    archive.add_argument("file", nargs="?", metavar="FILE", help="a new file or a folder")
    archive.add_argument(
        "--check",
        type=Path,
        metavar="FILE",
        help="check the archive FILE instead (every member's hash, arena verify of each "
        "tournament, the store against its folders), unpacked apart from the league",
    )


def _action(actions: Any, name: str, results: str | None = None) -> argparse.ArgumentParser:
    """An action's parser, with --league, and --results if it reads the results folders
    (`results`: what they are to it)."""
    said = ACTIONS[name]
    parser: argparse.ArgumentParser = actions.add_parser(name, help=said, description=said)
    _add_where(parser, results, defaults=False)
    return parser


def _add_where(parser: argparse.ArgumentParser, results: str | None, *, defaults: bool) -> None:
    """--league, and --results where the action reads them. Only `arena league` itself sets
    their defaults: an action's parser leaves a flag unset unless it is given there, so that
    one given before the action's name stands."""
    parser.add_argument(
        "--league",
        type=validate.league_named,
        default=DEFAULT_LEAGUE if defaults else argparse.SUPPRESS,
        help=f"{LEAGUE} (default: {DEFAULT_LEAGUE})",
    )
    if results is not None:
        parser.add_argument(
            "--results",
            type=Path,
            action="append",
            default=None if defaults else argparse.SUPPRESS,
            help=results,
        )


def _restore(args: argparse.Namespace, console: Console) -> int:
    """A backup put back, or a season archive (`--to`) restored into a new folder."""
    if args.to is None:
        return backups.cmd_restore(args, console)
    if not args.source:
        raise TournamentError("arena league restore --to DIR needs the archive: FILE")
    return archives.cmd_restore_archive(args, console)


RUN: dict[str, Callable[[argparse.Namespace, Console], int]] = {
    "check": upkeep.cmd_check,
    "rebuild": upkeep.cmd_rebuild,
    "remove": upkeep.cmd_remove,
    "backup": backups.cmd_backup,
    "restore": _restore,
    "export": exports.cmd_export,
    "prune": upkeep.cmd_prune,
    "archive": archives.cmd_archive,
}
"""Each action and what runs it."""


def cmd_league(args: argparse.Namespace, console: Console) -> int:
    return RUN[args.action](args, console)


COMMANDS = {"league": cmd_league}
