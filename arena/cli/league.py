"""`arena serve`, `arena token` and `arena league`: the league server, its entrants and its store.

`arena admin`, which talks to a running server, is `arena.cli.admin`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from arena.bots.manifest import valid_name
from arena.cli import admin, archives, backups, options, validate, webpage
from arena.cli.admin import DEFAULT_ADMIN, DEFAULT_LEAGUE
from arena.cli.serve import add_quota_flags, cmd_serve
from arena.cli.toolchains import add_toolchains_flag
from arena.league.check import Checked, check
from arena.league.export import Chosen, export
from arena.league.rebuild import rebuild
from arena.referee.service.auth import new_token, token_hash
from arena.referee.service.bounds import HELLO_TIMEOUT, MAX_MESSAGE_BYTES
from arena.store import is_url, open_store, shown
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.options import Command
from arena.tournament.results.pruning import prune

LEAGUE = "the league store: an SQLite file, or a postgresql:// URL"
"""What --league is, in every command's help."""
TOKEN_ACTIONS = {
    "add": "register NAME: its token on stdout alone (so `> FILE` makes a token file), the "
    "words on stderr",
    "revoke": "forget NAME's token; its sessions are closed within seconds",
    "list": "the registered names",
}


def add_commands(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the referee for remote bots (a league server)")
    serve.add_argument(
        "--listen", default="0.0.0.0:50051", help="HOST:PORT where bots connect (port 0: any free)"
    )
    serve.add_argument("--admin", default=DEFAULT_ADMIN, help="where the organiser connects")
    serve.add_argument("--tls-cert", type=Path, help="certificate (PEM) for TLS")
    serve.add_argument("--tls-key", type=Path, help="private key (PEM) for TLS")
    serve.add_argument(
        "--tls-ca",
        type=Path,
        help="the CA certificate (PEM) that signed --tls-cert, which the local bots (--bots) "
        "trust; default: --tls-cert itself, a self-signed one",
    )
    serve.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE, help=LEAGUE)
    serve.add_argument(
        "--out",
        type=validate.out_folder,
        default=Path("results"),
        help="the folder of its tournaments' and ladder rounds' results",
    )
    serve.add_argument(
        "--sessions-per-bot",
        type=validate.int_at_least(1),
        default=8,
        help="sessions one name may open",
    )
    serve.add_argument(
        "--max-message-bytes",
        type=validate.int_at_least(1024),
        default=MAX_MESSAGE_BYTES,
        help="the largest message a bot or an author may send, in bytes (a submission comes "
        "in pieces of this size)",
    )
    serve.add_argument(
        "--hello-timeout",
        type=validate.seconds,
        default=HELLO_TIMEOUT,
        help="seconds a new stream has to say who it is before it is closed",
    )
    options.add_options(serve, Command.SERVE)
    add_toolchains_flag(serve)
    serve.add_argument(
        "--no-reflection",
        action="store_true",
        help="do not answer gRPC server reflection on the bots' port (on by default: the "
        "protocol is public)",
    )
    webpage.add_web_flag(serve, "the tournaments `arena admin start` begins (and /metrics)")
    serve.add_argument(
        "--log-format",
        choices=["screen", "json"],
        default="screen",
        help="screen: a readable line per event (default); json: one JSON object a line, "
        "with its time, for a log shipper",
    )
    add_quota_flags(serve)
    serve.add_argument(
        "--ladder",
        action="store_true",
        help="play the ladder from the start: games all the time among the league's entrants "
        "(`arena admin ladder` starts, stops and shows it)",
    )
    serve.add_argument(
        "--ladder-table-size",
        metavar="N[,N...]",
        type=validate.table_sizes,
        default=(3,),
        help="the ladder's table size (default 3), or several (2,3,4): the matchmaker then "
        "draws each table's",
    )
    serve.add_argument(
        "--ladder-jobs",
        type=validate.int_at_least(1),
        default=2,
        help="the ladder's games at a time (default 2): a round plays its table in every "
        "rotation, so jobs / (largest) table size tables play at once (at least one), no "
        "entrant at two",
    )
    serve.add_argument(
        "--ladder-keep-rounds",
        action="store_true",
        help="keep each finished ladder round's folder as it played (15 KB and 5 files a "
        "game) rather than fold it into its day's record under results/days/ (a few files a "
        "day, under 3 KB a game)",
    )

    serve.add_argument(
        "--new-league",
        action="store_true",
        help="start on an empty league store although a league's files are beside it "
        "(accepted versions, its tournaments, a ladder secret); refused without it, as a "
        "deleted or mistyped store",
    )
    serve.add_argument(
        "--new-ladder-secret",
        action="store_true",
        help="make the ladder's secret anew although the store holds its rounds; refused "
        "without it, as a deleted secret",
    )

    token = commands.add_parser("token", help="register entrants of the league server")
    token.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE, help=LEAGUE)
    # An action of its own parser, so that `token add --league X alice` reads as
    # `token add alice --league X` does (one parser's optional NAME would be taken as absent).
    actions = token.add_subparsers(dest="action", required=True, metavar="{add,revoke,list}")
    for action in ("add", "revoke", "list"):
        sub = actions.add_parser(action, help=TOKEN_ACTIONS[action])
        if action != "list":
            sub.add_argument("name", nargs="?", help="the bot's name, as it says it in its Hello")
        sub.add_argument(
            "--league",
            type=validate.league_store,
            default=argparse.SUPPRESS,
            help=f"{LEAGUE} (default: {DEFAULT_LEAGUE})",
        )

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
        help="check: compare every game, not only what changed since the last check that agreed",
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

    admin.add_command(commands)


def cmd_token(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.league)
    try:
        if args.action == "list":
            for name in sorted(store.entrants()):
                console.print(name, highlight=False)
            return 0
        if not getattr(args, "name", None):
            raise TournamentError(f"arena token {args.action} needs a bot name")
        if args.action == "add":
            if not valid_name(args.name):
                raise TournamentError(f"{args.name!r} is not a usable bot name")
            secret = new_token()
            store.set_entrant(args.name, token_hash(secret))
            # The words on stderr, the bare token alone on stdout: `arena token add NAME >
            # FILE` makes a token file `arena submit --token-file FILE` reads.
            print(f"Token for {args.name} (shown once; only its hash is kept):", file=sys.stderr)
            print(secret)
            return 0
        if not store.revoke_entrant(args.name):
            raise TournamentError(f"no entrant named {args.name!r}")
        console.print(
            f"Revoked {args.name}; its sessions are closed within seconds.", highlight=False
        )
        return 0
    finally:
        store.close()


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


COMMANDS = {
    "serve": cmd_serve,
    "token": cmd_token,
    "admin": admin.cmd_admin,
    "league": cmd_league,
}
