"""`arena league`: the league store beside its results: checked, rebuilt, backed up, restored,
exported, pruned and archived.

The league server itself is `arena serve` (`arena.cli.serve`), its entrants `arena token`
(`arena.cli.token`), and `arena admin`, which talks to a running server, `arena.cli.admin`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.cli import archives, backups, validate
from arena.cli.admin import DEFAULT_LEAGUE, LEAGUE
from arena.league.check import Checked, check
from arena.league.export import Chosen, export
from arena.league.rebuild import rebuild
from arena.store import is_url, open_store, shown
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.results.pruning import prune


def add_command(commands: Any) -> None:
    league = commands.add_parser(
        "league",
        help="compare the league store with the results folders, repair it, take a "
        "tournament out, back it up or restore it",
    )
    league.add_argument(
        "action",
        choices=["check", "rebuild", "remove", "backup", "restore", "export", "prune", "archive"],
        help="check: compare the store with the results; rebuild: make it again from them; "
        "remove: take a tournament out; backup, restore: copy it out, or back in; export: "
        "every game as a JSON line; prune: let old replays and logs go, results kept; "
        "archive: the whole season (store, results, submissions, ladder secret) in one file",
    )
    league.add_argument(
        "tournament",
        nargs="?",
        metavar="ARGUMENT",
        help="remove: the tournament's id; backup: DEST, a new file or a folder; restore: SRC, "
        "a backup (or, with --to, a season archive); archive: FILE, a new file or a folder",
    )
    league.add_argument(
        "--check",
        type=Path,
        metavar="FILE",
        help="archive: check the archive FILE instead (every member's hash, arena verify of "
        "each tournament, the store against its folders), unpacked apart from the league",
    )
    league.add_argument(
        "--full",
        action="store_true",
        help="check: compare every game and read every page of an SQLite store, not only "
        "what changed since the last check that agreed",
    )
    league.add_argument("--league", type=validate.league_named, default=DEFAULT_LEAGUE, help=LEAGUE)
    league.add_argument(
        "--results",
        type=Path,
        action="append",
        help="check, rebuild, export: a results folder to read; restore: the one its advice "
        "names (repeatable; default: the league's own folder)",
    )
    exported = league.add_argument_group("export: every game as a JSON line, its replay's fields")
    kinds = exported.add_mutually_exclusive_group()
    kinds.add_argument("--ladder", action="store_true", help="the ladder's rounds only")
    kinds.add_argument("--nights", action="store_true", help="the league nights only")
    league.add_argument(
        "--before",
        type=validate.moment,
        metavar="WHEN",
        help="prune: the replays and logs of games that began before then (2026-11-01, local "
        "time); the results, ratings and every later game stay",
    )
    exported.add_argument(
        "--since",
        type=validate.moment,
        metavar="WHEN",
        help="games that began then or later (2026-12-01, or 2026-12-01T18:00, local time)",
    )
    exported.add_argument("--author", metavar="NAME", help="the games NAME played in")
    exported.add_argument(
        "--to",
        type=Path,
        metavar="PATH",
        help="export: write to the file PATH (default: standard output); restore: the new "
        "folder to restore a season archive into",
    )


def cmd_league(args: argparse.Namespace, console: Console) -> int:
    if args.action == "export":
        return _export(args, console)
    if args.action == "prune":
        return _prune(args, console)
    if args.action == "backup":
        return backups.cmd_backup(args, console)
    if args.action == "archive":
        return archives.cmd_archive(args, console)
    if args.action == "restore" and args.to is not None:
        if not args.tournament:
            raise TournamentError("arena league restore --to DIR needs the archive: FILE")
        return archives.cmd_restore_archive(args, console)
    if args.action == "restore":
        return backups.cmd_restore(args, console)
    own = Path("results") if is_url(args.league) else Path(args.league).parent
    if args.action == "check":
        return _check(args.league, args.results or [own], console, full=args.full)
    if args.action == "rebuild":
        rebuilt = rebuild(args.league, args.results or [own])
        for tournament, games in rebuilt.tournaments:
            console.print(f"  {tournament}: {games} games", highlight=False, markup=False)
        for note in rebuilt.notes:
            console.print(f"  ! {printable(note)}", highlight=False, markup=False, style="yellow")
        games = sum(n for _, n in rebuilt.tournaments)
        console.print(
            f"Rebuilt {shown(args.league) if is_url(args.league) else args.league}: "
            f"{len(rebuilt.tournaments)} tournaments, {games} games.",
            highlight=False,
        )
        if rebuilt.entrants is None:
            console.print(
                "No entrant's token was carried over: the old store is missing or unreadable, "
                "and the results folders do not hold tokens. If remote bots were registered, "
                "register each again with: arena token add NAME",
                highlight=False,
                style="yellow",
            )
        elif rebuilt.entrants:
            console.print(f"Kept {rebuilt.entrants} entrants' tokens.", highlight=False)
        for old in rebuilt.set_aside:
            console.print(f"The old file is kept as {old}", highlight=False)
        return 0
    if not args.tournament:
        raise TournamentError("arena league remove needs a tournament id")
    store = open_store(args.league)
    try:
        removed = store.remove_tournament(args.tournament)
    finally:
        store.close()
    if removed is None:
        raise TournamentError(f"no tournament {args.tournament!r} in {store.where}")
    console.print(
        f"Removed {args.tournament} ({removed} games) from {store.where}; league ratings are "
        f"rated afresh from the games that remain. Its folder is untouched (so `arena league "
        f"rebuild` would take it back in: move the folder away first).",
        highlight=False,
        markup=False,
    )
    return 0


def _prune(args: argparse.Namespace, console: Console) -> int:
    if args.before is None:
        raise TournamentError(
            "arena league prune needs --before WHEN: the games whose replays and logs go"
        )
    own = Path("results") if is_url(args.league) else Path(args.league).parent
    done = prune(args.results or [own], args.before)
    console.print(
        f"Pruned {done.games} games in {done.tournaments} tournaments: "
        f"{done.bytes / 1024 / 1024:.1f} MiB of replays and logs let go; their results, the "
        "ratings and `arena verify` of every game kept stand.",
        highlight=False,
    )
    return 0


def _export(args: argparse.Namespace, console: Console) -> int:
    own = Path("results") if is_url(args.league) else Path(args.league).parent
    chosen = Chosen(
        ladder=True if args.ladder else False if args.nights else None,
        since=args.since,
        author=args.author,
    )
    if args.to is None:
        done = export(args.league, args.results or [own], chosen, sys.stdout)
    else:
        with args.to.open("w", encoding="utf-8") as out:
            done = export(args.league, args.results or [own], chosen, out)
    said = Console(stderr=True)  # standard output is the games'
    for problem in done.problems:
        said.print(f"! {printable(problem)}", highlight=False, markup=False, style="yellow")
    where = f" to {args.to}" if args.to is not None else ""
    let_go = f" ({done.pruned} more were pruned: no replay to export)" if done.pruned else ""
    said.print(f"Exported {done.games} games{where}{let_go}.", highlight=False)
    return 1 if done.problems else 0


def _check(league: Path | str, results: list[Path], console: Console, full: bool = False) -> int:
    """Every difference on a line of its own; 1 when there is any."""
    checked = check(league, results, full=full)
    where = shown(str(league)) if is_url(league) else str(league)
    folders = " ".join(f"--results {root}" for root in results)

    def say(text: str, style: str | None = None) -> None:
        console.print(text, highlight=False, markup=False, soft_wrap=True, style=style)

    for note in checked.notes:
        say(f"  ! {note}", "yellow")
    for difference in checked.differences:
        say(f"  {difference}")
    if not checked.differences:
        say(
            f"The league {where} agrees with its folders: {checked.tournaments} tournaments, "
            f"{checked.games} games."
        )
        return 0
    if is_url(league):
        repair = (
            f"take each tournament named out with `arena league remove NAME --league {where}`, "
            f"then `arena league rebuild --league {where} {folders}` puts its folder's games back"
        )
    else:
        repair = (
            f"`arena league rebuild --league {where} {folders}` makes the league again from them"
        )
    say(
        f"The league {where} differs from its folders: {_differences(checked)} above; "
        f"the folders are the record: {repair}.",
        "red",
    )
    return 1


def _differences(checked: Checked) -> str:
    count = len(checked.differences)
    return f"{count} difference{'' if count == 1 else 's'}"


COMMANDS = {"league": cmd_league}
