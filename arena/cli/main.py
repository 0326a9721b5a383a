"""`arena`: run tournaments, read the league, replay games, benchmark, check bots."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from arena.cli import (
    ab,
    author,
    bench,
    board,
    cluster,
    dryrun,
    league,
    live,
    options,
    play,
    replay,
    request,
    submit,
    toolchains,
    validate,
    verify,
    webpage,
)
from arena.cli.interrupt import stop_on_ctrl_c
from arena.errors import ArenaError
from arena.text import printable
from arena.tournament.config import StoppedError, TournamentConfig, TournamentError
from arena.tournament.options import Command
from arena.tournament.results.folder import TournamentFolder
from engine import PerudoError

if TYPE_CHECKING:  # loaded by the command that plays, not by `arena --help` nor a read
    from arena.metrics import Metrics
    from arena.tournament.play.tables import TableWatcher
    from arena.tournament.tournament import Observer, Summary, Tournament
    from arena.web.spectator import Spectator


def _parser() -> argparse.ArgumentParser:
    parser = validate.OneLineParser(
        prog="arena", description="Perudo Arena: bot tournaments with TrueSkill."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="run a tournament of the bots in a folder")
    source = run.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--bots",
        type=validate.folder,
        help="folder of bots (sub-folders with bot.toml, or scripts)",
    )
    source.add_argument(
        "--resume",
        type=validate.folder,
        metavar="FOLDER",
        help="continue an interrupted tournament",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="show who would play and the schedule's size; build, start and create nothing",
    )
    options.add_options(run, Command.RUN)
    toolchains.add_toolchains_flag(run)
    webpage.add_web_flag(run, "the tournament")
    cluster.add_cluster_flags(run)

    board.add_command(commands)
    author.add_command(commands)
    play.add_command(commands)

    bench.add_command(commands)
    check = commands.add_parser("check-bot", help="put one bot through a compliance suite")
    check.add_argument("path", type=Path, help="a bot folder (with bot.toml) or script")
    options.add_options(check, Command.CHECK_BOT)
    toolchains.add_toolchains_flag(check)

    league.add_commands(commands)
    submit.add_command(commands)
    request.add_command(commands)
    verify.add_commands(commands)
    ab.add_command(commands)

    replay.add_command(commands)
    return parser


async def _run_tournament(
    tournament: Tournament,
    view: live.LiveView,
    resume: Path | None,
    web: tuple[str, Spectator, Metrics] | None = None,
) -> Summary:
    stop_on_ctrl_c(view, tournament)
    if web is None:
        return await tournament.run(resume)
    where, spectator, metrics = web
    async with webpage.serving(spectator, where, view.note, metrics):
        summary = await tournament.run(resume)
        spectator.ended(summary)  # the final board, with its confidence, before the page closes
        return summary


def _check_resume(args: argparse.Namespace, config: TournamentConfig, console: Console) -> None:
    """A resume plays the schedule it began with: say so when --games asks for another."""
    if args.dry_run:
        raise TournamentError("--dry-run plans a new run: give --bots, not --resume")
    if not config.timeouts:
        raise TournamentError(
            "--no-timeout starts a debug run: a resume keeps the time control its run began "
            "with (start a new run with --bots to debug)"
        )
    try:
        info = TournamentFolder(args.resume).info()
        planned = info.games
    except (OSError, ValueError):
        return  # the run itself says what is wrong with the folder
    if info.ab is not None:  # played without its test, it would never stop at a verdict
        raise TournamentError(f"{args.resume} is an A/B test: arena ab --resume {args.resume}")
    if args.games is None:
        return
    if planned != args.games:
        console.print(
            f"--games {args.games} is ignored: a resumed tournament keeps the schedule it "
            f"began with (--games {planned})",
            highlight=False,
        )


def cmd_run(args: argparse.Namespace, console: Console) -> int:
    from arena.tournament.metering import sessions_by_state
    from arena.tournament.play.tables import TableWatchers
    from arena.tournament.tournament import Observers, Tournament
    from arena.web.spectator import Spectator

    config = options.config(args, Command.RUN, bots_dir=args.bots or Path("."))
    config.check_cores()
    if args.resume is not None:
        _check_resume(args, config, console)
    else:
        try:  # the default store is only known now: OUT/league.sqlite
            validate.league_store(str(config.league_store))
        except argparse.ArgumentTypeError as error:
            raise TournamentError(f"--league: {error}") from None
        if args.dry_run:
            return dryrun.dry_run(config, console, args.web is not None, args.cluster is not None)
        dryrun.check_table_size(config)
    if not config.timeouts:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    try:
        with live.LiveView(console) as view:
            web = None
            observer: Observer = view
            tables: TableWatcher | None = None
            if args.web:  # the page, and the metrics beside it
                spectator, meter = Spectator(), webpage.meter()
                observer = Observers(view, spectator, meter)
                tables = TableWatchers(spectator, meter)
                web = (args.web, spectator, meter.metrics)
            tournament = Tournament(
                config, observer, tables, cluster.hosts_of(args, config, observer)
            )
            if web is not None:
                web[2].follow_sessions(lambda: sessions_by_state(tournament.lobby))
            summary = asyncio.run(_run_tournament(tournament, view, args.resume, web))
    except StoppedError as stopped:  # the games played are worth their replays still
        webpage.pages(stopped.summary, lambda text: console.print(text, markup=False))
        raise
    resume = f"arena run --resume {summary.folder}{cluster.resume_flags(args)}"
    live.print_report(console, summary.report(), resume)
    webpage.pages(summary, lambda text: live.say(console, text))
    return 0 if summary.status == "finished" else 130


def cmd_check_bot(args: argparse.Namespace, console: Console) -> int:
    from arena.checkbot.check import Check, check_bot

    def say(check: Check) -> None:
        mark = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{mark} {check.name}: ", end="")
        console.print(printable(check.detail), highlight=False, markup=False)
        if check.log_tail:
            console.print("     the bot's log ends:", style="dim")
            for line in check.log_tail:
                console.print(f"     | {printable(line)}", highlight=False, markup=False)
        if check.warning:
            console.print("[yellow]WARN[/] ", end="")
            console.print(printable(check.warning), highlight=False, markup=False)

    config = options.config(args, Command.CHECK_BOT, bots_dir=args.path)
    console.print(f"Checking {args.path}", highlight=False)
    if not config.timeouts:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    run = asyncio.run(
        check_bot(
            args.path,
            say,
            config.move_time,
            config.connect_timeout,
            sandbox=config.sandbox,
            build_network=config.build_network,
            rebuild=config.rebuild,
            timeouts=config.timeouts,
        )
    )
    failed = sum(not c.passed for c in run.checks)
    console.print(
        f"{len(run.checks) - failed} passed, {failed} failed",
        style="green" if run.passed else "red",
    )
    if run.log is not None:
        console.print(f"The bot's log is kept: {run.log}", highlight=False, markup=False)
    return 0 if run.passed else 1


COMMANDS = {
    **bench.COMMANDS,
    **ab.COMMANDS,
    **league.COMMANDS,
    **verify.COMMANDS,
    **submit.COMMANDS,
    **request.COMMANDS,
    **author.COMMANDS,
    "run": cmd_run,
    "check-bot": cmd_check_bot,
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
