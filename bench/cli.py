"""`arena bench BENCH` (found in the clone by `arena.cli.bench`): one subcommand per bench.

Each bench declares its own flags and returns one shape of result, a `Report`
(`to_json()` for `--json`, `lines()` for the terminal, `failed()` for the exit
status), so that the command itself only parses, runs and prints. `arena
bench` alone is `arena bench speed`, the arena against raw gRPC.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from rich.console import Console

from arena.bots.run.capacity import default_jobs
from arena.cli import validate
from arena.tournament.config import TournamentError
from bench import ladder_cli, rankings_cli, season_cli

Say = Callable[[str], None]


class Report(Protocol):
    """What every bench returns."""

    def to_json(self) -> Any: ...

    def lines(self) -> list[str]: ...


@dataclass(frozen=True, slots=True)
class Bench:
    """One subcommand: its name, its help, its own flags, and the run that makes its report."""

    name: str
    help: str
    flags: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Say], Report]


@dataclass(frozen=True, slots=True)
class Listed:
    """Several results of one bench (one per setting), each with its own `to_json`."""

    items: Sequence[Any]
    head: tuple[str, ...]
    line: Callable[[Any], str]

    def to_json(self) -> list[Any]:
        return [item.to_json() for item in self.items]

    def lines(self) -> list[str]:
        return [*self.head, *(self.line(item) for item in self.items)]


@dataclass(frozen=True, slots=True)
class Figures:
    """A bench whose figures are a flat mapping, with the lines that read them."""

    figures: dict[str, float]
    said: tuple[str, ...]

    def to_json(self) -> dict[str, float]:
        return self.figures

    def lines(self) -> list[str]:
        return list(self.said)


def _speed_flags(bench: argparse.ArgumentParser) -> None:
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


def _speed(args: argparse.Namespace, say: Say) -> Figures:
    from bench import benchmark

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        figures = benchmark.run(
            args.seconds,
            args.concurrency,
            args.bots,
            Path(logs),
            say,
            rounds=args.rounds,
            sandbox=args.sandbox,
            profile=args.profile,
        )
    said = [
        f"arena/transport ratio: {figures['arena_to_transport_ratio']:.2f} (target at least "
        f"0.7); engine worst case {figures['engine_us_per_decision']:.1f} us per decision "
        "(target at most 20)"
    ]
    if args.sandbox:
        said.append(
            f"sandboxed/unsandboxed ratio: {figures['sandboxed_to_unsandboxed_ratio']:.2f} "
            f"(target at least 0.95); the sandbox adds {figures['sandbox_startup_cost_ms']:.0f} "
            f"ms to a bot's start-up (target under 100); a sandboxed Python bot is ready in "
            f"{figures['sandboxed_startup_ms_per_bot']:.0f} ms, "
            f"{figures['startup_ms_per_bot']:.0f} ms unsandboxed"
        )
    return Figures(figures, tuple(said))


def _ab_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--runs",
        type=validate.int_at_least(2),
        default=12,
        help="tests per design (default 12, a minute or two)",
    )
    bench.add_argument(
        "--field",
        default="0.1,0.2,0.3",
        metavar="NOISE,...",
        help="the opponents' noise, one number per opponent: 0 plays the same in the same "
        "position, as a deterministic bot does (default 0.1,0.2,0.3)",
    )


def _ab(args: argparse.Namespace, say: Say) -> Report:
    from bench.ab_pairing import Setup, compare

    try:
        field = tuple(float(n) for n in args.field.split(","))
    except ValueError:
        raise TournamentError(f"--field {args.field!r} is not numbers with commas") from None
    if not 1 <= len(field) <= 5 or not all(0 <= n <= 1 for n in field):
        raise TournamentError(f"--field {args.field}: one to five numbers from 0 to 1")
    return compare(Setup(opponents=field), args.runs, say)


def _web_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--clients", type=validate.int_at_least(1), default=100, help="pages (default 100)"
    )
    bench.add_argument(
        "--games", type=validate.int_at_least(4), default=48, help="games per trial (default 48)"
    )
    bench.add_argument(
        "--rounds",
        type=validate.int_at_least(1),
        default=3,
        help="times the two sides alternate (best kept)",
    )


def _web(args: argparse.Namespace, say: Say) -> Report:
    from arena.web.address import WebError

    try:
        from bench.web_pages import measure
    except ImportError as error:
        raise WebError(
            f"bench web needs the web extra ({error.name} is missing): "
            'pip install -e ".[web]" (run in the clone)'
        ) from None
    return measure(args.clients, args.games, args.rounds, default_jobs(), say)


def _cluster_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--games", type=validate.int_at_least(8), default=200, help="games per trial (default 200)"
    )


def _cluster(args: argparse.Namespace, say: Say) -> Report:
    from bench.cluster import run_cluster_bench

    with tempfile.TemporaryDirectory(prefix="arena-bench-") as root:
        return run_cluster_bench(args.games, 4, default_jobs(), Path(root), say)


def _flood_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument("--seconds", type=validate.seconds, default=30.0, help="the flood's length")
    bench.add_argument(
        "--connections",
        type=validate.int_at_least(1),
        default=32,
        help="connections, half on the Unix socket and half on the TCP port (default 32)",
    )
    bench.add_argument(
        "--streams",
        type=validate.int_at_least(1),
        default=16,
        help="streams kept open on each connection (default 16)",
    )
    bench.add_argument(
        "--message-bytes",
        type=validate.int_at_least(0),
        default=4 * 1024 * 1024 - 1024,
        help="each stream's first message (default just under 4 MiB; 0: streams that say nothing)",
    )


def _flood(args: argparse.Namespace, say: Say) -> Report:
    from bench.flood import FloodSetup, run_flood

    setup = FloodSetup(
        seconds=args.seconds,
        connections=args.connections,
        streams=args.streams,
        message_bytes=args.message_bytes,
    )
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        return run_flood(setup, Path(logs))


def _timing_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "--seconds", type=validate.seconds, default=3.0, help="seconds per setting (default 3)"
    )
    bench.add_argument(
        "--bots", type=validate.int_at_least(2), default=24, help="instant bots (default 24)"
    )
    bench.add_argument(
        "--jobs", help="games at once, comma-separated (default: the usable cores, and twice that)"
    )
    bench.add_argument(
        "--move-time",
        type=validate.seconds,
        default=0.05,
        help="seconds per decision (default 0.05)",
    )
    bench.add_argument(
        "--front-door",
        action="store_true",
        help="each setting also with the bots through the referee's front door, as a league "
        "server's remote bots come: what the relay that times their links costs, side by side",
    )


def _timing(args: argparse.Namespace, say: Say) -> Listed:
    from bench.timing import Timing, run_timing

    cores = default_jobs()
    try:
        jobs = tuple(int(n) for n in args.jobs.split(",")) if args.jobs else (cores, 2 * cores)
    except ValueError:
        raise TournamentError(f"--jobs {args.jobs!r} is not numbers with commas") from None
    with tempfile.TemporaryDirectory(prefix="arena-bench-") as logs:
        doors = (False, True) if args.front_door else (False,)
        results = run_timing(jobs, args.bots, args.move_time, args.seconds, Path(logs), doors=doors)

    def line(r: Timing) -> str:
        verdict = "" if r.allowed else "  (arena run refuses this without --force-jobs)"
        door = ""
        if args.front_door:
            door = (
                f"{'front door' if r.front_door else 'direct':>10}: {r.per_second:6.0f} "
                f"decisions/s, median {r.median_ms:.3f} ms; "
            )
        return (
            f"--jobs {r.jobs:>2}: {door}{r.per_10000:6.2f} timeouts per 10,000 decisions "
            f"({r.timeouts} of {r.decisions}, {r.bots_timed_out} bots), "
            f"{r.referee_late} excused as the referee's lag (worst {r.worst_lag_ms:.0f} ms)"
            f"{verdict}"
        )

    head = (
        f"{args.bots} instant bots, --move-time {args.move_time:g}, "
        f"{args.seconds:g} s per setting, on {cores} usable cores",
    )
    return Listed(results, head, line)


def _field_flags(bench: argparse.ArgumentParser) -> None:
    bench.add_argument(
        "sizes",
        metavar="N,...",
        help="real nights of N instant bots each, the time to their first game and from a "
        "Ctrl-C to the exit, side by side (e.g. 100,250,500)",
    )


def _field(args: argparse.Namespace, say: Say) -> Listed:
    from bench.fieldsize import FieldFigures, available_mb, largest_field, measure_field

    try:
        sizes = [int(n) for n in args.sizes.split(",")]
    except ValueError:
        raise TournamentError(f"{args.sizes!r} is not numbers with commas") from None
    if not sizes or min(sizes) < 2:
        raise TournamentError(f"{args.sizes}: each night needs at least 2 bots")
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
    return Listed(results, (), FieldFigures.line)


BENCHES = (
    Bench(
        "speed",
        "the engine, raw gRPC and the referee on the same bots, side by side (the default)",
        _speed_flags,
        _speed,
    ),
    Bench("ab", "games the paired A/B test needs against an unpaired one", _ab_flags, _ab),
    Bench(
        "rankings",
        "games the batch fit and TrueSkill need to the true order, on simulated bots",
        rankings_cli.add_flags,
        rankings_cli.run,
    ),
    Bench(
        "ladder",
        "games the ladder's matchmaking needs to a sure order, against the round robin's",
        ladder_cli.add_ladder_flags,
        ladder_cli.run_ladder,
    ),
    Bench(
        "soak",
        "a real arena serve --ladder with submitted bots, played for long and watched",
        ladder_cli.add_soak_flags,
        ladder_cli.run_soak,
    ),
    Bench("web", "decisions/s with and without live pages open", _web_flags, _web),
    Bench(
        "cluster",
        "games/s on one host and on two (Ray, on this machine; the cluster extra)",
        _cluster_flags,
        _cluster,
    ),
    Bench(
        "flood",
        "the arena's memory while a hostile process floods the referee",
        _flood_flags,
        _flood,
    ),
    Bench(
        "timing",
        "timeouts per 10,000 decisions of instant bots at several --jobs",
        _timing_flags,
        _timing,
    ),
    Bench("field", "a night's start and stop by its number of bots", _field_flags, _field),
    Bench(
        "season",
        "a simulated season of ladder rounds on disk: bytes and files a game, and the time of "
        "what authors and organisers look at, at 10k, 100k and 1M games",
        season_cli.add_flags,
        season_cli.run,
    ),
)
DEFAULT = "speed"


def add_command(commands: Any) -> None:
    bench = commands.add_parser(
        "bench", help="measure the arena side by side (arena bench BENCH --help for each)"
    )
    kinds = bench.add_subparsers(dest="bench", metavar="BENCH")
    for each in BENCHES:
        parser = kinds.add_parser(each.name, help=each.help, description=each.help)
        parser.add_argument("--json", action="store_true", help="print the figures as JSON")
        each.flags(parser)
        parser.set_defaults(bench_run=each.run)


def cmd_bench(args: argparse.Namespace, console: Console) -> int:
    if args.bench is None:  # `arena bench`: the speed bench, as it always was
        speed = next(each for each in BENCHES if each.name == DEFAULT)
        defaults = argparse.ArgumentParser()
        defaults.add_argument("--json", action="store_true")
        speed.flags(defaults)
        args = defaults.parse_args([], namespace=args)
        args.bench_run = speed.run
    errors = Console(stderr=True)

    def say(text: str) -> None:
        (errors if args.json else console).print(
            text, highlight=False, markup=False, soft_wrap=True
        )

    report: Report = args.bench_run(args, say)
    if args.json:
        print(json.dumps(report.to_json(), indent=2))
    else:
        for line in report.lines():
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    failed: Callable[[], Sequence[str]] | None = getattr(report, "findings", None)
    return 1 if failed is not None and failed() else 0
