"""`arena admin`: the organiser's side of a running league server (status, start, stop).

Each action is a sub-command with its own flags (`arena admin status --help` is not
`arena admin start`'s fifty), all of them with the connection flags. `arena admin start`
asks for a tournament with `arena run`'s options and follows it in the same live view,
ending on the same leaderboard; the ladder's and the final's actions are told by
`arena.cli.ladder_admin` and `arena.cli.final_admin`, the authors' by `arena.cli.submit`
and `arena.cli.request`.
"""

from __future__ import annotations

import argparse
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
    from rich.console import Console

    from arena.tournament.report.summary import RunReport

DEFAULT_LEAGUE = Path("results/league.sqlite")
LEAGUE = "the league store: an SQLite file, or a postgresql:// URL"
"""What --league is, in every command's help."""
DEFAULT_ADMIN = "127.0.0.1:50052"


ACTIONS = {
    "status": "the night in play: the bots connected, its games, the bots awaited",
    "start": "start a night with `arena run`'s options and follow it to its leaderboard",
    "stop": "stop the night in play after the games in flight",
    "submissions": "the submissions and their verdicts",
    "withdraw": "withdraw a version of an entrant: it plays no more",
    "requests": "the authors' requests for test games",
    "ladder": "start, stop or see the ladder (default: status)",
    "final": "start or see the season's final (default: status)",
}
"""Each action of `arena admin`, said in `arena admin --help`."""
LADDER = {
    "start": "start the ladder: games all the time among the entrants",
    "stop": "stop the ladder after the games in flight",
    "status": "the ladder's tables in play, its board and its latest games",
}
FINAL = {
    "start": "close submissions and play the season's final in the live view, then print "
    "its standings",
    "status": "how the final stands: its field while it plays, its standings once over",
}


def add_command(commands: Any) -> None:
    """`arena admin ACTION`: a sub-command for each action, each with its own flags and the
    connection flags that every action shares."""
    admin = commands.add_parser(
        "admin",
        help="talk to a running league server",
        description="Talk to a running league server. Every action takes the connection "
        "flags, here or after its name.",
    )
    _add_connection_flags(admin, defaults=True)
    actions = admin.add_subparsers(dest="action", required=True, metavar="ACTION")
    _action(actions, "status")
    start = _action(actions, "start")
    start.add_argument("--bots", type=Path, help="also start the local bots in this folder")
    start.add_argument("--only", nargs="+", default=[], help="only these connected bots")
    _add_night_flags(start, "start")
    _action(actions, "stop")
    _add_author_flag(_action(actions, "submissions"))
    withdraw = _action(actions, "withdraw")
    withdraw.add_argument("version", metavar="NAME@VERSION", help="the version, e.g. alice@3")
    _add_author_flag(_action(actions, "requests"))

    steps = _action(actions, "ladder").add_subparsers(dest="target", metavar="{start,stop,status}")
    for step, said in LADDER.items():
        _action(steps, step, said)
    steps = _action(actions, "final").add_subparsers(dest="target", metavar="{start,status}")
    final = _action(steps, "start", FINAL["start"])
    final.add_argument(
        "--top",
        type=int,
        metavar="N",
        help="only the ladder's best N entrants (default: every entrant)",
    )
    _add_night_flags(final, "final start")
    _action(steps, "status", FINAL["status"])


def _action(actions: Any, name: str, said: str | None = None) -> argparse.ArgumentParser:
    """An action's parser, with the connection flags."""
    said = said or ACTIONS[name]
    parser: argparse.ArgumentParser = actions.add_parser(name, help=said, description=said)
    _add_connection_flags(parser, defaults=False)
    return parser


def _add_connection_flags(parser: argparse.ArgumentParser, *, defaults: bool) -> None:
    """Where the server's admin service is and how to find its token: every action's. Only
    `arena admin` itself sets their defaults: an action's parser leaves a flag unset unless it
    is given there, so that one given before the action's name stands."""

    def default(value: object) -> object:
        return value if defaults else argparse.SUPPRESS

    connection = parser.add_argument_group("connection (every action's)")
    connection.add_argument(
        "--admin",
        default=default(DEFAULT_ADMIN),
        help=f"the server's admin address (default: {DEFAULT_ADMIN})",
    )
    connection.add_argument(
        "--token-file",
        type=Path,
        default=default(None),
        help="default: admin.token beside the league",
    )
    connection.add_argument(
        "--league",
        type=validate.league_named,
        default=default(DEFAULT_LEAGUE),
        help=f"the league store, to find admin.token beside it (default: {DEFAULT_LEAGUE})",
    )


def _add_night_flags(parser: argparse.ArgumentParser, command: str) -> None:
    """A night's options, as `arena run` takes them, and where a stopped one resumes."""
    parser.add_argument(
        "--resume",
        metavar="FOLDER",
        help=f"continue this interrupted tournament (a folder, or a name under the server's "
        f"results folder) instead of a new one: arena admin {command} --resume NAME",
    )
    options.add_options(parser, Command.ADMIN_START)


def _add_author_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--author", help="only this entrant's")


def _admin_call(
    args: argparse.Namespace,
) -> tuple[apb_grpc.AdminServiceStub, list[tuple[str, str]], grpc.aio.Channel]:
    from arena.league.league_server import admin_token_path  # the server's module, for its path

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


COMMANDS = {"admin": cmd_admin}
