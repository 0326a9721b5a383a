"""`arena bench`: the engine, the transport and the referee, measured side by side; and
what pairing, rankings, spectators and load cost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console

from arena.bots.capacity import default_jobs
from arena.cli import ladderbench, rankbench, seasonbench, validate
from arena.tournament.config import TournamentError

if TYPE_CHECKING:
    import argparse


def add_command(commands: Any) -> None:
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
    bench.add_argument(
        "--profile",
        type=Path,
        metavar="FILE",
        help="also play the arena's measurement once under cProfile and write where its time "
        "goes to FILE (pstats; `python -m pstats FILE`, or snakeviz and flameprof draw it)",
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
    ladderbench.add_flags(bench)
    seasonbench.add_flags(bench)
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
    spread = bench.add_argument_group("a league across hosts (--cluster; the cluster extra)")
    spread.add_argument(
        "--cluster",
        action="store_true",
        help="games/s on one host and on two (Ray, on this machine), instant bots, instead",
    )
    spread.add_argument(
        "--cluster-games",
        type=validate.int_at_least(8),
        default=200,
        help="games per trial (default 200)",
    )
    field = bench.add_argument_group("a night's start and stop by its size (--field)")
    field.add_argument(
        "--field",
        metavar="N,...",
        help="instead: real nights of N instant bots each, the time to their first game and "
        "from a Ctrl-C to the exit, side by side (e.g. 100,250,500)",
    )
    flood = bench.add_argument_group("a Hello flood against the referee (--flood)")
    flood.add_argument(
        "--flood",
        action="store_true",
        help="the arena's memory and its honest bots while a hostile process floods the "
        "referee with huge Hellos, instead",
    )
    flood.add_argument(
        "--flood-seconds", type=validate.seconds, default=30.0, help="the flood's length"
    )
    flood.add_argument(
        "--flood-connections",
        type=validate.int_at_least(1),
        default=32,
        help="connections, half on the Unix socket and half on the TCP port (default 32)",
    )
    flood.add_argument(
        "--flood-streams",
        type=validate.int_at_least(1),
        default=16,
        help="streams kept open on each connection (default 16)",
    )
    flood.add_argument(
        "--flood-message-bytes",
        type=validate.int_at_least(0),
        default=4 * 1024 * 1024 - 1024,
        help="each stream's first message (default just under 4 MiB; 0: streams that say nothing)",
    )
    timing = bench.add_argument_group("fair timing under load (--timing)")
    timing.add_argument(
        "--timing",
        action="store_true",
        help="count timeouts per 10,000 decisions of instant bots at several --jobs instead",
    )
    timing.add_argument(
        "--timing-bots", type=validate.int_at_least(2), default=24, help="instant bots (default 24)"
    )
    timing.add_argument(
        "--timing-jobs",
        help="games at once, comma-separated (default: the usable cores, and twice that)",
    )
    timing.add_argument(
        "--move-time",
        type=validate.seconds,
        default=0.05,
        help="seconds per decision (default 0.05)",
    )


def cmd_bench(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench import benchmark as bench

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False)

    if args.timing:
        return _bench_timing(args, console)
    if args.field:
        return _bench_field(args, console)
    if args.ab:
        return _bench_ab(args, console)
    if args.rankings:
        return rankbench.cmd_bench_rankings(args, console)
    if args.ladder:
        return ladderbench.cmd_bench_ladder(args, console)
    if args.soak is not None:
        return ladderbench.cmd_bench_soak(args, console)
    if args.season:
        return seasonbench.cmd_bench_season(args, console)
    if args.web:
        return _bench_web(args, console)
    if args.cluster:
        return _bench_cluster(args, console)
    if args.flood:
        return _bench_flood(args, console)
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        figures = bench.run(
            args.seconds,
            args.concurrency,
            args.bots,
            Path(logs),
            say,
            rounds=args.rounds,
            sandbox=args.sandbox,
            profile=args.profile,
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
    from arena.web.address import WebError

    try:
        from arena.web.bench import measure
    except ImportError as error:
        raise WebError(
            f"bench --web needs the web extra ({error.name} is missing): "
            'pip install -e ".[web]" (run in the clone)'
        ) from None

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False)

    speed = measure(args.web_clients, args.web_games, args.rounds, default_jobs(), say)
    if args.json:
        print(json.dumps(speed.figures(), indent=2))
        return 0
    for line in speed.lines():
        console.print(line, highlight=False, markup=False)
    return 0


def _bench_cluster(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.cluster.bench import run_cluster_bench

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False, markup=False)

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as root:
        result = run_cluster_bench(args.cluster_games, 4, default_jobs(), Path(root), say)
    if args.json:
        print(json.dumps(result.to_json(), indent=2))
        return 0
    for line in result.lines():
        console.print(line, highlight=False, markup=False)
    return 0


def _bench_flood(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench.flood import FloodSetup, run_flood

    setup = FloodSetup(
        seconds=args.flood_seconds,
        connections=args.flood_connections,
        streams=args.flood_streams,
        message_bytes=args.flood_message_bytes,
    )
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        figures = run_flood(setup, Path(logs))
    if args.json:
        print(json.dumps(figures.to_json(), indent=2))
        return 0
    for line in figures.lines():
        console.print(line, highlight=False, markup=False)
    return 0


def _bench_timing(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench.timing import run_timing

    cores = default_jobs()
    try:
        jobs = (
            tuple(int(n) for n in args.timing_jobs.split(","))
            if args.timing_jobs
            else (cores, 2 * cores)
        )
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
        f"{args.seconds:g} s per setting, on {cores} usable cores",
        highlight=False,
    )
    for r in results:
        verdict = "" if r.allowed else "  (arena run refuses this without --force-jobs)"
        console.print(
            f"--jobs {r.jobs:>2}: {r.per_10000:6.2f} timeouts per 10,000 decisions "
            f"({r.timeouts} of {r.decisions}, {r.bots_timed_out} bots), "
            f"{r.referee_late} excused as the referee's lag (worst {r.worst_lag_ms:.0f} ms)"
            f"{verdict}",
            highlight=False,
            markup=False,
        )
    return 0


def _bench_field(args: argparse.Namespace, console: Console) -> int:
    import tempfile

    from arena.bench.fieldsize import FieldFigures, available_mb, largest_field, measure_field

    try:
        sizes = [int(n) for n in args.field.split(",")]
    except ValueError:
        raise TournamentError(f"--field {args.field!r} is not numbers with commas") from None
    if not sizes or min(sizes) < 2:
        raise TournamentError(f"--field {args.field}: each night needs at least 2 bots")

    def say(text: str) -> None:
        (Console(stderr=True) if args.json else console).print(text, highlight=False, markup=False)

    say(f"{available_mb():,.0f} MB available; nights of {', '.join(map(str, sizes))} bots")
    results: list[FieldFigures] = []
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as root:
        for size in sorted(sizes):
            if results and size > largest_field(results[-1].mb_per_bot):
                say(f"{size} bots: skipped, more than this machine's memory holds")
                continue
            results.append(figures := measure_field(size, Path(root), say))
            say(
                f"at {figures.mb_per_bot:.0f} MB a bot, this machine holds about "
                f"{largest_field(figures.mb_per_bot):,} bots"
            )
    if args.json:
        print(json.dumps([r.to_json() for r in results], indent=2))
        return 0
    for r in results:
        console.print(r.line(), highlight=False, markup=False)
    return 0


COMMANDS = {"bench": cmd_bench}
