"""`arena`: run tournaments, read the league, replay games, benchmark, check bots."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
from pathlib import Path

from rich.console import Console
from rich.text import Text

from arena.bots.capacity import check_jobs, default_jobs
from arena.bots.limits import ResourceLimits
from arena.cli import board, dryrun, league, live, options, replay, validate, verify
from arena.errors import ArenaError
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.folder import ResultsError, TournamentFolder
from arena.tournament.schedule import Deals
from arena.tournament.tournament import Summary, Tournament
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
    run.add_argument(
        "--out",
        type=validate.out_folder,
        default=Path("results"),
        help="where results go (default results/)",
    )
    options.add_fairness_flags(run)
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
    options.add_sandbox_flag(run)
    options.add_rules_flags(run)

    board.add_command(commands)

    bench = commands.add_parser("bench", help="measure the engine, the transport and the referee")
    bench.add_argument("--json", action="store_true", help="print the figures as JSON")
    bench.add_argument(
        "--seconds", type=validate.seconds, default=3.0, help="seconds per measurement"
    )
    bench.add_argument(
        "--concurrency", type=validate.int_at_least(1), default=6, help="games (requests) in flight"
    )
    bench.add_argument("--bots", type=validate.int_at_least(1), default=4, help="bot processes")
    bench.add_argument(
        "--rounds",
        type=validate.int_at_least(1),
        default=3,
        help="times transport and arena alternate (best kept)",
    )
    bench.add_argument(
        "--sandbox",
        action="store_true",
        help="also measure the arena with its bots sandboxed (speed and start-up, side by side)",
    )
    timing = bench.add_argument_group("fair timing under load (--timing)")
    timing.add_argument(
        "--timing",
        action="store_true",
        help="count timeouts per 1,000 decisions of instant bots at several --jobs instead",
    )
    timing.add_argument(
        "--timing-bots", type=validate.int_at_least(2), default=24, help="instant bots (default 24)"
    )
    timing.add_argument(
        "--timing-jobs", default="2,8,16", help="games at once, comma-separated (default 2,8,16)"
    )
    timing.add_argument(
        "--move-time",
        type=validate.seconds,
        default=0.05,
        help="seconds per decision (default 0.05)",
    )

    check = commands.add_parser("check-bot", help="put one bot through a compliance suite")
    check.add_argument("path", type=Path, help="a bot folder (with bot.toml) or script")
    check.add_argument(
        "--move-time", type=validate.seconds, default=1.0, help="seconds per decision"
    )
    check.add_argument("--connect-timeout", type=validate.seconds, default=20.0)
    options.add_sandbox_flag(check)

    league.add_commands(commands)
    verify.add_commands(commands)

    show = commands.add_parser("replay", help="tell one game round by round")
    show.add_argument("game", help="game id, TOURNAMENT/GAME, or a replay file")
    show.add_argument("--results", type=Path, default=Path("results"))
    return parser


def _config(args: argparse.Namespace) -> TournamentConfig:
    """The run's configuration; values were checked as the command line was parsed."""
    jobs = default_jobs() if args.jobs is None else args.jobs
    check_jobs(jobs, args.force_jobs)
    return TournamentConfig(
        bots_dir=args.bots or Path("."),
        out=args.out,
        table_size=args.table_size,
        games=args.games if args.games is not None else options.DEFAULT_GAMES,
        jobs=jobs,
        ruleset=options.ruleset(args),
        move_time=args.move_time,
        time_margin=args.time_margin,
        seed=seed_from_hex(args.seed, "--seed") if args.seed is not None else None,
        league=args.league,
        connect_timeout=args.connect_timeout,
        limits=ResourceLimits(
            memory_mb=args.memory_mb, cpu_s=args.cpu_s, build_timeout=args.build_timeout
        ),
        name=args.name,
        deals=Deals(args.deals),
        sandbox=args.sandbox,
    )


async def _run_tournament(
    tournament: Tournament, view: live.LiveView, resume: Path | None
) -> Summary:
    loop = asyncio.get_running_loop()
    presses = 0

    def interrupt() -> None:
        nonlocal presses
        presses += 1
        if presses == 1:
            view.note("stopping: finishing the games in flight (Ctrl-C again to stop at once)")
            tournament.request_stop()
        else:
            view.note("stopping now; games in flight are abandoned")
            tournament.abort()

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, interrupt)
    return await tournament.run(resume)


def _check_resume(args: argparse.Namespace, console: Console) -> None:
    """A resume plays the schedule it began with: say so when --games asks for another."""
    if args.dry_run:
        raise TournamentError("--dry-run plans a new run: give --bots, not --resume")
    if args.games is None:
        return
    try:
        planned = TournamentFolder(args.resume).info()["games"]
    except (OSError, ValueError, KeyError):
        return  # the run itself says what is wrong with the folder
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
            return dryrun.dry_run(config, console)
        dryrun.check_table_size(config)
    with live.LiveView(console) as view:
        tournament = Tournament(config, view)
        summary = asyncio.run(_run_tournament(tournament, view, args.resume))
    console.print(live.leaderboard_table(summary.table, f"Leaderboard ({summary.games} games)"))
    for line in live.report_lines(summary.skipped, summary.faults, summary.slowest):
        console.print(line, highlight=False, markup=False)
    for note in summary.notes:
        console.print(note, highlight=False, markup=False)
    console.print(f"Results: {summary.folder}", highlight=False, markup=False)
    if summary.status != "finished":
        console.print(
            f"[yellow]Interrupted after {summary.games} of {summary.total} games.[/] "
            f"Continue with: arena run --resume {summary.folder}",
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


def cmd_replay(args: argparse.Namespace, console: Console) -> int:
    path = replay.find_replay(args.game, args.results)
    console.print(
        f"Tournament {replay.tournament_of(path)} ({path})", highlight=False, markup=False
    )
    try:
        game = replay.load(path)
    except (OSError, ValueError) as error:  # a file that is not a replay
        raise ResultsError(f"{path} is not a readable replay: {error}") from None
    for line in replay.tell(game):
        console.print(line, highlight=False, markup=False)
    return 0


def cmd_bench(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench import benchmark as bench

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False)

    if args.timing:
        return _bench_timing(args, console)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        figures = bench.run(
            args.seconds,
            args.concurrency,
            args.bots,
            Path(logs),
            say,
            rounds=args.rounds,
            sandbox=args.sandbox,
        )
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        console.print(
            f"arena/transport ratio: [bold]{figures['arena_to_transport_ratio']:.2f}[/] "
            f"(target at least 0.7); engine worst case "
            f"[bold]{figures['engine_us_per_decision']:.1f} us[/] per decision (target at most 20)"
        )
        if args.sandbox:
            console.print(
                f"sandboxed/unsandboxed ratio: "
                f"[bold]{figures['sandboxed_to_unsandboxed_ratio']:.2f}[/] (target at least 0.95); "
                f"the sandbox adds [bold]{figures['sandbox_startup_cost_ms']:.0f} ms[/] to a "
                f"bot's start-up (target under 100); a sandboxed Python bot is ready in "
                f"{figures['sandboxed_startup_ms_per_bot']:.0f} ms, "
                f"{figures['startup_ms_per_bot']:.0f} ms unsandboxed"
            )
    return 0


def _bench_timing(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench.timing import run_timing

    try:
        jobs = tuple(int(n) for n in args.timing_jobs.split(","))
    except ValueError:
        raise TournamentError(
            f"--timing-jobs {args.timing_jobs!r} is not numbers with commas"
        ) from None
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        results = run_timing(jobs, args.timing_bots, args.move_time, args.seconds, Path(logs))
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
        return 0
    console.print(
        f"{args.timing_bots} instant bots, --move-time {args.move_time:g}, "
        f"{args.seconds:g} s per setting, on {default_jobs()} usable cores",
        highlight=False,
    )
    for r in results:
        verdict = "" if r.allowed else "  (arena run refuses this without --force-jobs)"
        console.print(
            f"--jobs {r.jobs:>2}: {r.per_1000:6.2f} timeouts per 1,000 decisions "
            f"({r.timeouts} of {r.decisions}, {r.bots_timed_out} bots), "
            f"{r.referee_late} excused as the referee's lag (worst {r.worst_lag_ms:.0f} ms)"
            f"{verdict}",
            highlight=False,
            markup=False,
        )
    return 0


def cmd_check_bot(args: argparse.Namespace, console: Console) -> int:
    from arena.checkbot.check import Check, check_bot

    def say(check: Check) -> None:
        mark = "[green]PASS[/]" if check.passed else "[red]FAIL[/]"
        console.print(f"{mark} {check.name}: ", end="")
        console.print(check.detail, highlight=False, markup=False)

    console.print(f"Checking {args.path}", highlight=False)
    run = asyncio.run(
        check_bot(args.path, say, args.move_time, args.connect_timeout, sandbox=args.sandbox)
    )
    failed = sum(not c.passed for c in run.checks)
    console.print(
        f"{len(run.checks) - failed} passed, {failed} failed",
        style="green" if run.passed else "red",
    )
    return 0 if run.passed else 1


COMMANDS = {
    **league.COMMANDS,
    **verify.COMMANDS,
    "run": cmd_run,
    "bench": cmd_bench,
    "check-bot": cmd_check_bot,
    "leaderboard": board.cmd_leaderboard,
    "replay": cmd_replay,
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
            Text.assemble((f"arena {args.command}:", "red"), " ", str(error)), soft_wrap=True
        )
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
