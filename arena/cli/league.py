"""`arena serve`, `arena token` and `arena admin`: the league server from the terminal."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
from rich.console import Console

from arena.bots.capacity import default_jobs
from arena.bots.manifest import valid_name
from arena.cli import live, options, validate, webpage
from arena.league.handshakes import HandshakeWatch
from arena.league.rebuild import rebuild
from arena.league.server import LeagueConfig, LeagueServer, admin_token_path
from arena.league.store import is_url, open_store, shown
from arena.protocol._proto.perudo.v1 import admin_pb2 as apb
from arena.protocol._proto.perudo.v1 import admin_pb2_grpc as apb_grpc
from arena.records import GameLine, Json, LeaderboardRow
from arena.referee.auth import new_token, token_hash
from arena.referee.server import ServerLimits, Tls
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.ratings import Standing
from arena.tournament.report import BotTimes, SlowDecision
from arena.tournament.tournament import Progress
from arena.web.spectator import Spectator

DEFAULT_LEAGUE = Path("results/league.sqlite")
DEFAULT_ADMIN = "127.0.0.1:50052"


def add_commands(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the referee for remote bots (a league server)")
    serve.add_argument("--listen", default="0.0.0.0:50051", help="where bots connect")
    serve.add_argument("--admin", default=DEFAULT_ADMIN, help="where the organiser connects")
    serve.add_argument("--tls-cert", type=Path, help="certificate (PEM) for TLS")
    serve.add_argument("--tls-key", type=Path, help="private key (PEM) for TLS")
    serve.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE)
    serve.add_argument("--out", type=validate.out_folder, default=Path("results"))
    serve.add_argument(
        "--sessions-per-bot",
        type=validate.int_at_least(1),
        default=8,
        help="sessions one name may open",
    )
    serve.add_argument(
        "--max-message-bytes",
        type=validate.int_at_least(1024),
        default=ServerLimits().max_message_bytes,
    )
    serve.add_argument(
        "--hello-timeout", type=validate.seconds, default=ServerLimits().hello_timeout
    )
    serve.add_argument(
        "--reconnect-grace",
        type=validate.seconds,
        default=60.0,
        help="seconds a disconnected bot's games wait before they are dropped",
    )
    webpage.add_web_flag(serve, "the tournaments `arena admin start` begins")

    token = commands.add_parser("token", help="register entrants of the league server")
    token.add_argument("--league", type=validate.league_store, default=DEFAULT_LEAGUE)
    # An action of its own parser, so that `token add --league X alice` reads as
    # `token add alice --league X` does (one parser's optional NAME would be taken as absent).
    actions = token.add_subparsers(dest="action", required=True, metavar="{add,revoke,list}")
    for action in ("add", "revoke", "list"):
        sub = actions.add_parser(action)
        if action != "list":
            sub.add_argument("name", nargs="?")
        sub.add_argument("--league", type=validate.league_store, default=argparse.SUPPRESS)

    league = commands.add_parser("league", help="repair the league store, or take a tournament out")
    league.add_argument("action", choices=["rebuild", "remove"])
    league.add_argument("tournament", nargs="?", help="remove: the tournament's id")
    league.add_argument("--league", type=validate.league_named, default=DEFAULT_LEAGUE)
    league.add_argument(
        "--results",
        type=Path,
        action="append",
        help="rebuild: a results folder to read (repeatable; default: the league's own folder)",
    )

    admin = commands.add_parser("admin", help="talk to a running league server")
    admin.add_argument("action", choices=["status", "start", "stop"])
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
    options.add_sandbox_flag(admin)
    options.add_rules_flags(admin)


def cmd_token(args: argparse.Namespace, console: Console) -> int:
    store = open_store(args.league)
    try:
        if args.action == "list":
            for name in sorted(store.entrants()):
                console.print(name, highlight=False)
            return 0
        if not getattr(args, "name", None):
            raise TournamentError(f"arena token {args.action} needs a bot name")
        if args.action == "add":
            if not valid_name(args.name):
                raise TournamentError(f"{args.name!r} is not a usable bot name")
            secret = new_token()
            store.set_entrant(args.name, token_hash(secret))
            console.print(
                f"Token for {args.name} (shown once; only its hash is kept):", highlight=False
            )
            print(secret)
            return 0
        if not store.revoke_entrant(args.name):
            raise TournamentError(f"no entrant named {args.name!r}")
        console.print(
            f"Revoked {args.name}; its sessions are closed within seconds.", highlight=False
        )
        return 0
    finally:
        store.close()


def cmd_league(args: argparse.Namespace, console: Console) -> int:
    if args.action == "rebuild":
        own = Path("results") if is_url(args.league) else Path(args.league).parent
        rebuilt = rebuild(args.league, args.results or [own])
        for tournament, games in rebuilt.tournaments:
            console.print(f"  {tournament}: {games} games", highlight=False, markup=False)
        for note in rebuilt.notes:
            console.print(f"  ! {note}", highlight=False, markup=False, style="yellow")
        games = sum(n for _, n in rebuilt.tournaments)
        console.print(
            f"Rebuilt {shown(args.league) if is_url(args.league) else args.league}: "
            f"{len(rebuilt.tournaments)} tournaments, {games} games.",
            highlight=False,
        )
        if rebuilt.entrants is None:
            console.print(
                "No entrant's token was carried over: the old store is missing or unreadable, "
                "and the results folders do not hold tokens. If remote bots were registered, "
                "register each again with: arena token add NAME",
                highlight=False,
                style="yellow",
            )
        elif rebuilt.entrants:
            console.print(f"Kept {rebuilt.entrants} entrants' tokens.", highlight=False)
        for old in rebuilt.set_aside:
            console.print(f"The old file is kept as {old}", highlight=False)
        return 0
    if not args.tournament:
        raise TournamentError("arena league remove needs a tournament id")
    store = open_store(args.league)
    try:
        removed = store.remove_tournament(args.tournament)
    finally:
        store.close()
    if removed is None:
        raise TournamentError(f"no tournament {args.tournament!r} in {store.where}")
    console.print(
        f"Removed {args.tournament} ({removed} games) from {store.where}; league ratings are "
        f"rated afresh from the games that remain. Its folder is untouched (so `arena league "
        f"rebuild` would take it back in: move the folder away first).",
        highlight=False,
        markup=False,
    )
    return 0


def cmd_serve(args: argparse.Namespace, console: Console) -> int:
    tls = None
    if args.tls_cert or args.tls_key:
        if not (args.tls_cert and args.tls_key):
            raise TournamentError("TLS needs both --tls-cert and --tls-key")
        tls = Tls(args.tls_cert.read_bytes(), args.tls_key.read_bytes())
    config = LeagueConfig(
        listen=args.listen,
        admin_listen=args.admin,
        league=args.league,
        out=args.out,
        tls=tls,
        limits=ServerLimits(
            max_message_bytes=args.max_message_bytes, hello_timeout=args.hello_timeout
        ),
        sessions_per_bot=args.sessions_per_bot,
        defaults=TournamentConfig(
            bots_dir=None, jobs=default_jobs(), reconnect_grace=args.reconnect_grace
        ),
    )
    return asyncio.run(_serve(config, console, args.web))


async def _serve(config: LeagueConfig, console: Console, web: str | None = None) -> int:
    def say(text: str) -> None:
        stamp = time.strftime("%H:%M:%S")
        console.print(f"{stamp} {text}", highlight=False, markup=False)

    spectator = Spectator() if web is not None else None
    async with contextlib.AsyncExitStack() as page:
        if spectator is not None and web is not None:  # a port in use: nothing else started
            await page.enter_async_context(webpage.serving(spectator, web, say))
        # At each tournament's end: its board on the page, and its HTML replays (as arena run).
        server = LeagueServer(config, say, spectator, spectator, webpage.after_run(spectator, say))
        return await _serve_league(server, console, say)


async def _serve_league(server: LeagueServer, console: Console, say: Callable[[str], None]) -> int:
    config = server.config
    try:
        await server.start()
    except OSError as error:
        await server.stop()
        raise TournamentError(f"cannot start the league server: {error}") from None
    host = config.listen.rpartition(":")[0]
    console.print(
        f"Referee listening on {host}:{server.port}{' (TLS)' if config.tls else ''}",
        highlight=False,
    )
    console.print(
        f"Admin on {config.admin_listen.rpartition(':')[0]}:{server.admin_port}; "
        f"token in {admin_token_path(config.league, config.out)}",
        highlight=False,
    )
    console.print("Register bots with: arena token add NAME   (Ctrl-C stops the server)")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    # gRPC's line per failed TLS handshake, told once in words instead.
    with HandshakeWatch(say) if config.tls else contextlib.nullcontext():
        await stop.wait()
        console.print("Stopping: finishing the games in flight.")
        await server.stop()
    return 0


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
    request = apb.StartTournamentRequest(
        games=args.games or 0,  # 0: the server's default
        table_size=args.table_size or 0,
        jobs=args.jobs or 0,  # 0: the server's default, one game per core
        move_time=args.move_time,
        rules="rulebook",
        rule_fields={k: str(v) for k, v in ruleset.to_mapping().items()},
        seed_hex=args.seed or "",
        bots_dir=str(args.bots.resolve()) if args.bots else "",
        name=args.name or "",
        only=args.only,
        resume=_resume_argument(args.resume),
        deals=args.deals,
        sandbox=str(args.sandbox),
        time_margin=args.time_margin,
        time_bank=args.time_bank,
        increment=args.increment,
        force_jobs=args.force_jobs,
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
            data = json.loads(event.finished_json)
            view.__exit__()
            times = [BotTimes(**t) for t in data.get("times", [])]
            console.print(
                live.leaderboard_table(
                    _standings(data["table"]), f"Leaderboard ({data['games']} games)"
                )
            )
            report = live.report_lines(
                [tuple(s) for s in data.get("skipped", [])],
                data.get("faults", {}),
                [SlowDecision(**d) for d in data.get("slowest", [])],
                times,
            )
            for line in report:
                console.print(line, highlight=False, markup=False)
            console.print(f"Results: {data['folder']} ({data['status']})", highlight=False)
            return 0 if data["status"] == "finished" else 130
        else:
            handlers[kind](json.loads(getattr(event, kind)))
    raise TournamentError("the league server closed the stream before the tournament ended")


def _resume_argument(given: str | None) -> str:
    """A folder here as an absolute path (the server may run elsewhere), else a name as given."""
    if not given:
        return ""
    return str(Path(given).resolve()) if Path(given).is_dir() else given


def _standings(rows: list[Json]) -> list[Standing]:
    return [Standing.from_row(LeaderboardRow.from_json(r)) for r in rows]


COMMANDS = {"serve": cmd_serve, "token": cmd_token, "admin": cmd_admin, "league": cmd_league}
