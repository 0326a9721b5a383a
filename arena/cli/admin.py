"""`arena admin`: the organiser's side of a running league server (status, start, stop).

`arena admin start` asks for a tournament with `arena run`'s options and
follows it in the same live view, ending on the same leaderboard.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import grpc

from arena.cli import live, options, request, submit, validate
from arena.cli.final_admin import final_action
from arena.cli.ladder_admin import ladder_action
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.info import RunStatus
from arena.tournament.options import Command

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from arena.tournament.report.summary import RunReport

DEFAULT_LEAGUE = Path("results/league.sqlite")
DEFAULT_ADMIN = "127.0.0.1:50052"


def add_command(commands: Any) -> None:
    admin = commands.add_parser("admin", help="talk to a running league server")
    admin.add_argument(
        "action",
        choices=[
            "status",
            "start",
            "stop",
            "submissions",
            "withdraw",
            "ladder",
            "requests",
            "final",
        ],
        help="status: the night in play; start, stop: a night; submissions: the verdicts; "
        "withdraw: a version; ladder: start, stop or see the ladder; requests: the authors' "
        "test games; final: start or see the season's final",
    )
    admin.add_argument(
        "target",
        nargs="?",
        help="withdraw: NAME@VERSION; ladder: start, stop or status; final: start or status",
    )
    admin.add_argument("--author", help="submissions, requests: only this entrant's")
    admin.add_argument("--admin", default=DEFAULT_ADMIN, help="the server's admin address")
    admin.add_argument("--token-file", type=Path, help="default: admin.token beside the league")
    admin.add_argument(
        "--league",
        type=validate.league_named,
        default=DEFAULT_LEAGUE,
        help="the league store, to find admin.token beside it",
    )
    admin.add_argument(
        "--top",
        type=int,
        metavar="N",
        help="final start: only the ladder's best N entrants (default: every entrant)",
    )
    admin.add_argument("--bots", type=Path, help="also start the local bots in this folder")
    admin.add_argument("--only", nargs="+", default=[], help="only these connected bots")
    admin.add_argument(
        "--resume",
        metavar="FOLDER",
        help="start: continue this interrupted tournament (a folder, or a name under the "
        "server's results folder) instead of a new one",
    )
    options.add_options(admin, Command.ADMIN_START)


def _admin_call(
    args: argparse.Namespace,
) -> tuple[apb_grpc.AdminServiceStub, list[tuple[str, str]], grpc.aio.Channel]:
    from arena.league.server import admin_token_path  # the server's module, for its path

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
                link = (
                    f", network round trip {bot.round_trip_ms:.1f} ms"
                    if bot.HasField("round_trip_ms")
                    else ""
                )
                console.print(
                    f"  {bot.name}: {bot.sessions} session(s){link}", highlight=False, markup=False
                )
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
        if args.action == "ladder":
            return await ladder_action(stub, metadata, args, console)
        if args.action == "final":
            return await final_action(stub, metadata, args, console)
        if args.action == "requests":
            return await request.admin_requests(stub, metadata, args, console)
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
    request = night_request(args, console)
    request.bots_dir = str(args.bots.resolve()) if args.bots else ""
    request.only[:] = args.only
    return await follow_night(
        stub, metadata, stub.StartTournament(request, metadata=metadata), args, console
    )


def night_request(args: argparse.Namespace, console: Console) -> apb.StartTournamentRequest:
    """The night's options as given, checked here as `arena run` checks them."""
    given = options.given(args, Command.ADMIN_START)
    TournamentConfig(bots_dir=None, **given)  # refused here as `arena run` refuses it
    from arena.league.start import request_of

    request = request_of(given)
    request.resume = _resume_argument(args.resume)
    if given.get("timeouts") is False:
        console.print(options.TIMEOUTS_OFF, style="bold yellow", highlight=False)
    return request


async def follow_night(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    stream: Any,
    args: argparse.Namespace,
    console: Console,
) -> int:
    """Follow a night the server plays in the live view, to its leaderboard; Ctrl-C asks the
    server to stop it after the games in flight."""
    loop = asyncio.get_running_loop()

    stopping: list[asyncio.Task[Any]] = []

    def interrupt() -> None:
        console.print("[yellow]![/] asking the server to stop after the games in flight")
        call = stub.StopTournament(apb.StopTournamentRequest(), metadata=metadata, timeout=10)
        stopping.append(asyncio.ensure_future(call))

    loop.add_signal_handler(signal.SIGINT, interrupt)
    with live.LiveView(console) as view:
        return await _follow(stream, view, console, args)


async def _follow(
    stream: Any, view: live.LiveView, console: Console, args: argparse.Namespace
) -> int:
    from arena.league.admin_stream import tell  # the night's events, read as they come

    async for event in stream:
        report = tell(event, view)
        if report is not None:
            view.__exit__()
            return _finished(report, console, _resume_command(report, args))
    raise TournamentError("the league server closed the stream before the tournament ended")


def _finished(report: RunReport, console: Console, resume: str) -> int:
    """The end of the run, told as `arena run` tells its own, and where its results are."""
    live.print_report(console, report, resume)
    return 0 if report.status is RunStatus.FINISHED else 130


def _resume_command(report: RunReport, args: argparse.Namespace) -> str:
    """The command that continues the run on the same server."""
    server = "" if args.admin == DEFAULT_ADMIN else f" --admin {args.admin}"
    start = "final start" if args.action == "final" else "start"
    return f"arena admin {start} --resume {report.folder.name}{server}"


def _resume_argument(given: str | None) -> str:
    """A folder here as an absolute path (the server may run elsewhere), else a name as given."""
    if not given:
        return ""
    return str(Path(given).resolve()) if Path(given).is_dir() else given
