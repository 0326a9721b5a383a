"""`arena`: run tournaments, read the league, replay games, benchmark, check bots."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from arena.bots.capacity import check_jobs, default_jobs
from arena.bots.limits import ResourceLimits
from arena.cli import (
    ab,
    bench,
    board,
    cluster,
    dryrun,
    league,
    live,
    options,
    play,
    replay,
    validate,
    verify,
    webpage,
)
from arena.cli.interrupt import stop_on_ctrl_c
from arena.errors import ArenaError
from arena.rankings import LEVEL
from arena.text import printable
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.folder import TournamentFolder
from arena.tournament.schedule import Deals
from arena.tournament.tournament import Observers, StoppedError, Summary, Tournament
from arena.web.spectator import Spectator
from engine import PerudoError, seed_from_hex


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
    options.add_schedule_flags(run)
    options.add_gauntlet_flag(run)
    run.add_argument(
        "--out",
        type=validate.out_folder,
        default=Path("results"),
        help="where results go (default results/)",
    )
    options.add_fairness_flags(run)
    options.add_no_timeout_flag(run)
    run.add_argument(
        "--league",
        type=validate.league_store,
        help="league store: an SQLite file (default OUT/league.sqlite) or a postgresql:// URL",
    )
    run.add_argument(
        "--connect-timeout", type=validate.seconds, default=20.0, help="seconds for bots to connect"
    )
    run.add_argument(
        "--memory-mb",
        type=validate.int_at_least(validate.MIN_MEMORY_MB),
        default=ResourceLimits().memory_mb,
        help="address space per bot",
    )
    run.add_argument(
        "--cpu-s",
        type=validate.int_at_least(1),
        default=ResourceLimits().cpu_s,
        help="CPU seconds per bot",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="show who would play and the schedule's size; build, start and create nothing",
    )
    run.add_argument(
        "--build-timeout",
        type=validate.seconds,
        default=ResourceLimits().build_timeout,
        help="most seconds a bot's build may take (its manifest may ask for less)",
    )
    options.add_recover_flag(run)
    run.add_argument(
        "--until-confident",
        type=validate.level,
        nargs="?",
        const=LEVEL,
        metavar="LEVEL",
        help=f"play whole rotation groups until every adjacent pair on the leaderboard is "
        f"separated at LEVEL (default {LEVEL:g}) or the --games budget is spent",
    )
    options.add_sandbox_flag(run)
    options.add_build_network_flag(run)
    options.add_store_patience_flag(run)
    options.add_rebuild_flag(run)
    options.add_rules_flags(run)
    webpage.add_web_flag(run, "the tournament")
    cluster.add_cluster_flags(run)

    board.add_command(commands)
    play.add_command(commands)

    bench.add_command(commands)
    check = commands.add_parser("check-bot", help="put one bot through a compliance suite")
    check.add_argument("path", type=Path, help="a bot folder (with bot.toml) or script")
    check.add_argument(
        "--move-time", type=validate.seconds, default=1.0, help="seconds per decision"
    )
    check.add_argument("--connect-timeout", type=validate.seconds, default=20.0)
    options.add_no_timeout_flag(check)
    options.add_sandbox_flag(check)
    options.add_build_network_flag(check)
    check.add_argument(
        "--rebuild", action="store_true", help="build the bot even if unchanged since its last"
    )

    league.add_commands(commands)
    verify.add_commands(commands)
    ab.add_command(commands)

    replay.add_command(commands)
    return parser


def _config(args: argparse.Namespace) -> TournamentConfig:
    """The run's configuration; values were checked as the command line was parsed."""
    jobs = default_jobs() if args.jobs is None else args.jobs
    check_jobs(jobs, args.force_jobs)
    if args.gauntlet is not None and Deals(args.deals) is Deals.DISJOINT:
        raise TournamentError(
            "--gauntlet seats its bot at every table, so no tables share no bot: "
            "use --deals own with it"
        )
    return TournamentConfig(
        bots_dir=args.bots or Path("."),
        out=args.out,
        table_size=args.table_size,
        games=args.games if args.games is not None else options.DEFAULT_GAMES,
        jobs=jobs,
        ruleset=options.ruleset(args),
        move_time=args.move_time,
        time_margin=args.time_margin,
        time_bank=args.time_bank,
        increment=args.increment,
        timeouts=not args.no_timeout,
        seed=seed_from_hex(args.seed, "--seed") if args.seed is not None else None,
        league=args.league,
        connect_timeout=args.connect_timeout,
        limits=ResourceLimits(
            memory_mb=args.memory_mb, cpu_s=args.cpu_s, build_timeout=args.build_timeout
        ),
        name=args.name,
        deals=Deals(args.deals),
        sandbox=args.sandbox,
        build_network=args.build_network,
        store_patience=args.store_patience,
        recover=args.recover,
        rebuild=args.rebuild,
        gauntlet=args.gauntlet,
        until_confident=args.until_confident,
    )


async def _run_tournament(
    tournament: Tournament,
    view: live.LiveView,
    resume: Path | None,
    web: tuple[str, Spectator] | None = None,
) -> Summary:
    stop_on_ctrl_c(view, tournament)
    if web is None:
        return await tournament.run(resume)
    where, spectator = web
    async with webpage.serving(spectator, where, view.note):
        summary = await tournament.run(resume)
        spectator.ended(summary)  # the final board, with its confidence, before the page closes
        return summary


def _check_resume(args: argparse.Namespace, console: Console) -> None:
    """A resume plays the schedule it began with: say so when --games asks for another."""
    if args.dry_run:
        raise TournamentError("--dry-run plans a new run: give --bots, not --resume")
    if args.no_timeout:
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
    config = _config(args)
    if args.resume is not None:
        _check_resume(args, console)
    else:
        try:  # the default store is only known now: OUT/league.sqlite
            validate.league_store(str(config.league_store))
        except argparse.ArgumentTypeError as error:
            raise TournamentError(f"--league: {error}") from None
        if args.dry_run:
            return dryrun.dry_run(config, console, args.web is not None, args.cluster is not None)
        dryrun.check_table_size(config)
    if args.no_timeout:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    try:
        with live.LiveView(console) as view:
            spectator = Spectator() if args.web else None
            observer = view if spectator is None else Observers(view, spectator)
            tournament = Tournament(
                config, observer, spectator, cluster.hosts_of(args, config, observer)
            )
            web = None if spectator is None else (args.web, spectator)
            summary = asyncio.run(_run_tournament(tournament, view, args.resume, web))
    except StoppedError as stopped:  # the games played are worth their replays still
        webpage.pages(stopped.summary, lambda text: console.print(text, markup=False))
        raise
    sure = summary.board.sure if summary.board else None
    title = f"Leaderboard ({summary.games} games)"
    console.print(live.leaderboard_table(summary.table, title, sure=sure))
    if summary.board is not None:
        console.print(summary.board.separation(), highlight=False, markup=False)
    if summary.outcome is not None:
        console.print(summary.outcome, highlight=False, markup=False)
    for line in live.report_lines(summary.skipped, summary.faults, summary.slowest, summary.times):
        console.print(line, highlight=False, markup=False)
    for note in summary.notes:
        console.print(printable(note), highlight=False, markup=False)
    webpage.pages(summary, lambda text: console.print(text, highlight=False, markup=False))
    console.print(
        f"Results: {summary.folder} (cross-table: cross.json; arena leaderboard --cross "
        f"--tournament {summary.folder.name})",
        highlight=False,
        markup=False,
    )
    if summary.status != "finished":
        console.print(
            f"[yellow]Interrupted after {summary.games} of {summary.total} games.[/] "
            f"Continue with: arena run --resume {summary.folder}{cluster.resume_flags(args)}",
            highlight=False,
        )
        return 130
    console.print(
        f"Dice seed: {summary.seed_hex} (check every deal: arena verify {summary.folder})",
        highlight=False,
        markup=False,
        soft_wrap=True,
    )
    return 0


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

    console.print(f"Checking {args.path}", highlight=False)
    if args.no_timeout:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    run = asyncio.run(
        check_bot(
            args.path,
            say,
            args.move_time,
            args.connect_timeout,
            sandbox=args.sandbox,
            build_network=args.build_network,
            rebuild=args.rebuild,
            timeouts=not args.no_timeout,
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
