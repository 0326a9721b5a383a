"""`arena`: run tournaments, read the league, replay games, benchmark, check bots."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from arena.bots.capacity import check_jobs, default_jobs
from arena.bots.limits import ResourceLimits
from arena.cli import (
    ab,
    board,
    dryrun,
    league,
    live,
    options,
    play,
    rankbench,
    replay,
    validate,
    verify,
    webpage,
)
from arena.cli.interrupt import stop_on_ctrl_c
from arena.errors import ArenaError
from arena.rankings import LEVEL
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.folder import ResultsError, TournamentFolder
from arena.tournament.recovery import DEFAULT_RESTARTS
from arena.tournament.schedule import Deals
from arena.tournament.tournament import Observers, Summary, Tournament
from arena.web.replay_page import replay_page
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
    run.add_argument(
        "--gauntlet",
        metavar="BOT",
        help="seat BOT (a bot of --bots) at every table, the others filling the rest as evenly "
        "as in a round robin: BOT against the field",
    )
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
    run.add_argument(
        "--recover",
        type=validate.int_at_least(1),
        nargs="?",
        const=DEFAULT_RESTARTS,
        default=0,
        metavar="N",
        help="start a bot whose process died again, at most N times in the tournament "
        f"(default N {DEFAULT_RESTARTS}); the crash is still a fault in its game. "
        "Without it a crash is final",
    )
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
    run.add_argument(
        "--rebuild", action="store_true", help="build every bot, even one unchanged since its last"
    )
    options.add_rules_flags(run)
    webpage.add_web_flag(run, "the tournament")

    board.add_command(commands)
    play.add_command(commands)

    _add_bench(commands)
    check = commands.add_parser("check-bot", help="put one bot through a compliance suite")
    check.add_argument("path", type=Path, help="a bot folder (with bot.toml) or script")
    check.add_argument(
        "--move-time", type=validate.seconds, default=1.0, help="seconds per decision"
    )
    check.add_argument("--connect-timeout", type=validate.seconds, default=20.0)
    options.add_no_timeout_flag(check)
    options.add_sandbox_flag(check)
    check.add_argument(
        "--rebuild", action="store_true", help="build the bot even if unchanged since its last"
    )

    league.add_commands(commands)
    verify.add_commands(commands)
    ab.add_command(commands)

    show = commands.add_parser("replay", help="tell one game round by round")
    show.add_argument("game", help="game id, TOURNAMENT/GAME, or a replay file")
    show.add_argument("--results", type=Path, default=Path("results"))
    show.add_argument(
        "--html", type=Path, metavar="OUT.html", help="write the game as an HTML replay instead"
    )
    return parser


def _add_bench(commands: Any) -> None:
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
    paired = bench.add_argument_group("the A/B test's pairing (--ab)")
    paired.add_argument(
        "--ab",
        action="store_true",
        help="games the paired A/B test needs against an unpaired one, over simulated bots",
    )
    paired.add_argument(
        "--ab-runs",
        type=validate.int_at_least(2),
        default=12,
        help="tests per design (default 12, a minute or two)",
    )
    paired.add_argument(
        "--ab-field",
        default="0.1,0.2,0.3",
        metavar="NOISE,...",
        help="the opponents' noise, one number per opponent: 0 plays the same in the same "
        "position, as a deterministic bot does (default 0.1,0.2,0.3)",
    )
    rankbench.add_flags(bench)
    web = bench.add_argument_group("what spectators cost (--web)")
    web.add_argument(
        "--web",
        action="store_true",
        help="decisions/s of real tournaments with and without live pages open, instead",
    )
    web.add_argument(
        "--web-clients", type=validate.int_at_least(1), default=100, help="pages (default 100)"
    )
    web.add_argument(
        "--web-games",
        type=validate.int_at_least(4),
        default=48,
        help="games per trial (default 48)",
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
        return await tournament.run(resume)


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
            return dryrun.dry_run(config, console)
        dryrun.check_table_size(config)
    if args.no_timeout:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    with live.LiveView(console) as view:
        spectator = Spectator() if args.web else None
        observer = view if spectator is None else Observers(view, spectator)
        tournament = Tournament(config, observer, tables=spectator)
        web = None if spectator is None else (args.web, spectator)
        summary = asyncio.run(_run_tournament(tournament, view, args.resume, web))
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
        console.print(note, highlight=False, markup=False)
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
    if args.html is not None:
        page = replay_page(path)  # a file that is not a replay: a ReplayPageError, one line
        try:
            args.html.write_text(page)
        except OSError as error:
            raise ResultsError(f"cannot write {args.html}: {error.strerror or error}") from None
        console.print(
            f"Wrote {args.html} (open it in a browser)",
            highlight=False,
            markup=False,
            soft_wrap=True,
        )
        return 0
    console.print(  # a path is copied from the screen: one line, however narrow the terminal
        f"Tournament {replay.tournament_of(path)} ({path})",
        highlight=False,
        markup=False,
        soft_wrap=True,
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
    if args.ab:
        return _bench_ab(args, console)
    if args.rankings:
        return rankbench.cmd_bench_rankings(args, console)
    if args.web:
        return _bench_web(args, console)
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


def _bench_ab(args: argparse.Namespace, console: Console) -> int:
    from arena.ab.benchmark import Setup, compare

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False)

    try:
        field = tuple(float(n) for n in args.ab_field.split(","))
    except ValueError:
        raise TournamentError(f"--ab-field {args.ab_field!r} is not numbers with commas") from None
    if not 1 <= len(field) <= 5 or not all(0 <= n <= 1 for n in field):
        raise TournamentError(f"--ab-field {args.ab_field}: one to five numbers from 0 to 1")
    result = compare(Setup(opponents=field), args.ab_runs, say)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    for line in result.lines():
        console.print(line, highlight=False, markup=False)
    return 0


def _bench_web(args: argparse.Namespace, console: Console) -> int:
    from arena.web.bench import measure

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False)

    speed = measure(args.web_clients, args.web_games, args.rounds, default_jobs(), say)
    figures = {
        "decisions_per_s_without_page": speed.without,
        "decisions_per_s_with_pages": speed.with_clients,
        "pages": speed.clients,
        "events_per_page": speed.events_per_client,
        "with_to_without_ratio": speed.ratio,
        "referee_cpu_us_per_decision_without_page": speed.cpu_us_without,
        "referee_cpu_us_per_decision_with_pages": speed.cpu_us_with,
        "cpu_without_to_with_ratio": speed.cpu_ratio,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    console.print(
        f"with {speed.clients} live pages open: [bold]{speed.with_clients:.0f}[/] decisions/s, "
        f"without: [bold]{speed.without:.0f}[/]; ratio [bold]{speed.ratio:.3f}[/] "
        f"(target at least 0.95); each page was sent {speed.events_per_client} events",
        highlight=False,
    )
    console.print(
        f"the referee's CPU per decision: [bold]{speed.cpu_us_with:.0f} us[/] with the pages, "
        f"[bold]{speed.cpu_us_without:.0f} us[/] without; ratio [bold]{speed.cpu_ratio:.3f}[/]",
        highlight=False,
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
        if check.log_tail:
            console.print("     the bot's log ends:", style="dim")
            for line in check.log_tail:
                console.print(f"     | {line}", highlight=False, markup=False)
        if check.warning:
            console.print("[yellow]WARN[/] ", end="")
            console.print(check.warning, highlight=False, markup=False)

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
    **ab.COMMANDS,
    **league.COMMANDS,
    **verify.COMMANDS,
    "run": cmd_run,
    "bench": cmd_bench,
    "check-bot": cmd_check_bot,
    "leaderboard": board.cmd_leaderboard,
    "replay": cmd_replay,
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
