"""`arena admin`: the organiser's side of a running league server (status, start, stop).

`arena admin start` asks for a tournament with `arena run`'s options and
follows it in the same live view, ending on the same leaderboard.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console

from arena.cli import live, options, submit, validate
from arena.league.events import confidence_from_json
from arena.league.server import admin_token_path
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.records import GameLine, Json, LeaderboardRow
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.ratings import Standing
from arena.tournament.report import BotTimes, SlowDecision
from arena.tournament.schedule import Deals
from arena.tournament.tournament import Progress

DEFAULT_LEAGUE = Path("results/league.sqlite")
DEFAULT_ADMIN = "127.0.0.1:50052"


def add_command(commands: Any) -> None:
    admin = commands.add_parser("admin", help="talk to a running league server")
    admin.add_argument("action", choices=["status", "start", "stop", "submissions", "withdraw"])
    admin.add_argument("target", nargs="?", help="withdraw: NAME@VERSION")
    admin.add_argument("--author", help="submissions: only this entrant's")
    admin.add_argument("--admin", default=DEFAULT_ADMIN, help="the server's admin address")
    admin.add_argument("--token-file", type=Path, help="default: admin.token beside the league")
    admin.add_argument("--league", type=validate.league_named, default=DEFAULT_LEAGUE)
    admin.add_argument("--bots", type=Path, help="also start the local bots in this folder")
    admin.add_argument("--only", nargs="+", default=[], help="only these connected bots")
    admin.add_argument(
        "--resume",
        metavar="FOLDER",
        help="start: continue this interrupted tournament (a folder, or a name under the "
        "server's results folder) instead of a new one",
    )
    options.add_schedule_flags(admin)
    options.add_fairness_flags(admin)
    options.add_gauntlet_flag(admin)
    options.add_sandbox_flag(admin)
    options.add_build_network_flag(admin)
    options.add_store_patience_flag(admin)
    options.add_recover_flag(admin)
    options.add_rebuild_flag(admin)
    options.add_rules_flags(admin)


def _admin_call(
    args: argparse.Namespace,
) -> tuple[apb_grpc.AdminServiceStub, list[tuple[str, str]], grpc.aio.Channel]:
    path = args.token_file or admin_token_path(args.league, Path("results"))
    token = os.environ.get("PERUDO_ADMIN_TOKEN") or (
        path.read_text().strip() if path.exists() else ""
    )
    if not token:
        raise TournamentError(
            f"no admin token: {path} does not exist and PERUDO_ADMIN_TOKEN is unset"
        )
    channel = grpc.aio.insecure_channel(args.admin)
    stub = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
    return stub, [("authorization", f"Bearer {token}")], channel


def cmd_admin(args: argparse.Namespace, console: Console) -> int:
    return asyncio.run(_admin(args, console))


async def _admin(args: argparse.Namespace, console: Console) -> int:
    stub, metadata, channel = _admin_call(args)
    try:
        if args.action == "status":
            status = await stub.GetStatus(apb.GetStatusRequest(), metadata=metadata, timeout=10)
            console.print(f"{len(status.bots)} bots connected", highlight=False)
            for bot in status.bots:
                console.print(f"  {bot.name}: {bot.sessions} session(s)", highlight=False)
            if status.tournament:
                console.print(
                    f"Tournament {status.tournament}: "
                    f"{status.games_done}/{status.games_total} games",
                    highlight=False,
                )
            for waiting in status.waiting:
                console.print(
                    f"  waiting for {waiting.name} (disconnected), "
                    f"{waiting.grace_left:.0f} s of grace left",
                    markup=False,
                    highlight=False,
                )
            return 0
        if args.action == "stop":
            reply = await stub.StopTournament(
                apb.StopTournamentRequest(), metadata=metadata, timeout=10
            )
            console.print(
                "Stopping the tournament." if reply.stopping else "No tournament is running."
            )
            return 0
        if args.action in {"submissions", "withdraw"}:
            return await submit.admin_action(stub, metadata, args, console)
        return await _start(stub, metadata, args, console)
    except grpc.aio.AioRpcError as error:
        raise TournamentError(
            f"the league server said {error.code().name}: {error.details()}"
        ) from None
    finally:
        await channel.close(None)


async def _start(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    args: argparse.Namespace,
    console: Console,
) -> int:
    ruleset = options.ruleset(args)
    if args.gauntlet is not None and Deals(args.deals) is Deals.DISJOINT:
        raise TournamentError(
            "--gauntlet seats its bot at every table, so no tables share no bot: "
            "use --deals own with it"
        )
    request = apb.StartTournamentRequest(
        games=args.games or 0,  # 0: the server's default
        table_size=args.table_size or 0,
        jobs=args.jobs or 0,  # 0: the server's default, one game per core
        move_time=args.move_time,
        rules="rulebook",
        # Only the changes: the rulebook's null calza_max_dice has no text form.
        rule_fields={k: str(v) for k, v in ruleset.changes().items()},
        seed_hex=args.seed or "",
        bots_dir=str(args.bots.resolve()) if args.bots else "",
        name=args.name or "",
        only=args.only,
        resume=_resume_argument(args.resume),
        deals=args.deals,
        sandbox=str(args.sandbox),
        build_network=str(args.build_network),
        store_patience=args.store_patience,
        time_margin=args.time_margin,
        time_bank=args.time_bank,
        increment=args.increment,
        force_jobs=args.force_jobs,
        recover=args.recover,
        rebuild=args.rebuild,
        gauntlet=args.gauntlet or "",
    )
    stream = stub.StartTournament(request, metadata=metadata)
    loop = asyncio.get_running_loop()

    stopping: list[asyncio.Task[Any]] = []

    def interrupt() -> None:
        console.print("[yellow]![/] asking the server to stop after the games in flight")
        call = stub.StopTournament(apb.StopTournamentRequest(), metadata=metadata, timeout=10)
        stopping.append(asyncio.ensure_future(call))

    loop.add_signal_handler(signal.SIGINT, interrupt)
    with live.LiveView(console) as view:
        return await _follow(stream, view, console)


async def _follow(stream: Any, view: live.LiveView, console: Console) -> int:
    handlers: dict[str, Callable[[dict[str, Any]], None]] = {
        "started_json": lambda d: view.started(
            Path(d["folder"]), d["entrants"], Progress(d["done"], d["total"], time.monotonic(), 0)
        ),
        "game_json": lambda d: view.game_finished(
            GameLine.from_json(d["line"]),
            _standings(d["table"]),
            Progress(d["done"], d["total"], time.monotonic() - d["elapsed"], d["played_now"]),
        ),
        "build_json": lambda d: view.building(d["name"], d["running"]),
    }
    async for event in stream:
        kind = event.WhichOneof("kind")
        if kind == "note":
            view.note(event.note)
        elif kind == "error":
            raise TournamentError(event.error)
        elif kind == "finished_json":
            view.__exit__()
            return _finished(json.loads(event.finished_json), console)
        else:
            handlers[kind](json.loads(getattr(event, kind)))
    raise TournamentError("the league server closed the stream before the tournament ended")


def _finished(data: Json, console: Console) -> int:
    """The end of the run, told as `arena run` tells its own: the leaderboard with the batch
    fit's rank range and P(rank 1), the neighbours not yet separated, then the report."""
    sure = confidence_from_json(data["sure"]) if "sure" in data else None
    title = f"Leaderboard ({data['games']} games)"
    console.print(live.leaderboard_table(_standings(data["table"]), title, sure=sure))
    said = [data.get("separation"), data.get("outcome")]
    report = live.report_lines(
        [tuple(s) for s in data.get("skipped", [])],
        data.get("faults", {}),
        [SlowDecision(**d) for d in data.get("slowest", [])],
        [BotTimes(**t) for t in data.get("times", [])],
    )
    for line in [*said, *report, *data.get("notes", [])]:
        if line:
            console.print(printable(line), highlight=False, markup=False)
    console.print(f"Results: {data['folder']} ({data['status']})", highlight=False)
    return 0 if data["status"] == "finished" else 130


def _resume_argument(given: str | None) -> str:
    """A folder here as an absolute path (the server may run elsewhere), else a name as given."""
    if not given:
        return ""
    return str(Path(given).resolve()) if Path(given).is_dir() else given


def _standings(rows: list[Json]) -> list[Standing]:
    return [Standing.from_row(LeaderboardRow.from_json(r)) for r in rows]
