"""`arena run`: a tournament of the bots in a folder, followed in the live view to its
leaderboard (and on a web page with --web); `--resume` continues an interrupted one.

The tournament, the referee and the page are loaded when the command runs, not by
`arena --help`."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import cluster, dryrun, live, options, toolchains, validate, webpage
from arena.cli.interrupt import stop_on_ctrl_c
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.options import Command
from arena.tournament.results.folder import TournamentFolder

if TYPE_CHECKING:  # loaded by the command that plays, not by `arena --help` nor a read
    from rich.console import Console

    from arena.metrics import Metrics
    from arena.tournament.play.tables import TableWatcher
    from arena.tournament.tournament import Observer, Summary, Tournament
    from arena.web.spectator import Spectator


def add_command(commands: Any) -> None:
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
        planned = info.plan.games
    except (OSError, ValueError):
        return  # the run itself says what is wrong with the folder
    if info.plan.ab is not None:  # played without its test, it would never stop at a verdict
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
    from arena.tournament.report.summary import StoppedError
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


COMMANDS = {"run": cmd_run}
