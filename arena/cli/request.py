"""`arena request`: unranked test games of your version against opponents you choose.

`arena request --against NAME[@VERSION] --games N --server ADDR --name YOU` asks the
league server for N games of your playing version (or `--version N`) at one table with
the opponents named (each its playing version, or the one named), waits while they are
played (one line a game), and ends on the outcome: your places, how often you finished
ahead of each opponent, and where each game's replay is kept. They are never rated.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.cli import validate
from arena.cli.submit import _token as token_of  # `arena submit`'s: the same token, read alike
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.protocol.messages import submission as spb
from arena.submissions.client import Server
from arena.submissions.request_client import request_games
from arena.text import printable
from arena.tournament.config import TournamentError

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def add_command(commands: Any) -> None:
    ask = commands.add_parser(
        "request",
        help="ask a league server for unranked test games against chosen opponents",
    )
    ask.add_argument("--server", required=True, metavar="HOST:PORT", help="the league server")
    ask.add_argument(
        "--name",
        default=os.environ.get("PERUDO_BOT_NAME"),
        help="your entrant's name (default: $PERUDO_BOT_NAME)",
    )
    ask.add_argument(
        "--against",
        action="append",
        required=True,
        metavar="NAME[@VERSION]",
        help="an opponent, at its playing version or the one named (repeatable: one table)",
    )
    ask.add_argument(
        "--games",
        type=validate.int_at_least(1),
        default=2,
        help="games to play, rounded up so each entrant sits in each seat (default %(default)s)",
    )
    ask.add_argument(
        "--version",
        type=validate.int_at_least(1),
        metavar="N",
        help="your accepted version N (default: the one that plays now)",
    )
    ask.add_argument(
        "--no-wait",
        action="store_true",
        help="end once the request is queued; its outcome is on your author page",
    )
    ask.add_argument(
        "--token-file",
        type=Path,
        help="a file holding your token (default: $PERUDO_TOKEN)",
    )
    ask.add_argument(
        "--tls", action="store_true", help="dial with TLS (also PERUDO_TLS=1), as a remote bot does"
    )
    ask.add_argument(
        "--ca-file", help="the certificate to trust, for a self-signed server (or PERUDO_CA_FILE)"
    )


def cmd_request(args: argparse.Namespace, console: Console) -> int:
    if not args.name:
        raise TournamentError("arena request needs your entrant's --name (or $PERUDO_BOT_NAME)")
    server = Server(
        args.server,
        tls=args.tls or os.environ.get("PERUDO_TLS", "") not in {"", "0"},
        ca_file=args.ca_file or os.environ.get("PERUDO_CA_FILE") or None,
    )
    request = spb.GamesRequest(
        name=args.name,
        token=token_of(args),
        version=args.version or 0,
        against=args.against,
        games=args.games,
    )
    outcome = asyncio.run(
        request_games(server, request, lambda r: _show(r, args.name, console), not args.no_wait)
    )
    for line in outcome_lines(outcome):
        console.print(printable(line), highlight=False, markup=False, soft_wrap=True)
    return 0 if outcome.state in {"played", "queued"} else 1


def _show(reply: spb.RequestReply, name: str, console: Console) -> None:
    if reply.WhichOneof("kind") == "ticket":
        ticket = reply.ticket
        line = (
            f"{ticket.id}: {ticket.games} games, {', '.join(ticket.seats)}; "
            f"{ticket.ahead} request(s) ahead; {ticket.left_today} left today"
        )
    else:
        game = reply.game
        place = list(game.ranking).index(name) + 1 if name in game.ranking else 0
        line = f"  {game.game}: {', '.join(game.ranking)} (you: {place}) {game.replay}"
    console.print(printable(line), highlight=False, markup=False, soft_wrap=True)


def outcome_lines(outcome: spb.RequestOutcome) -> list[str]:
    """The outcome as the author reads it: the last line says what happened."""
    if outcome.state == "refused":
        return [f"refused: {outcome.reason}"]
    if outcome.state == "queued":
        return [f"{outcome.id} is queued; its outcome will be on your author page"]
    lines = []
    if outcome.places:
        shown = ", ".join(str(p) for p in outcome.places)
        lines.append(f"your places: {shown}")
    for score in outcome.scores:
        lines.append(f"against {score.opponent}: ahead in {score.ahead} of {score.games} games")
    if outcome.state == "played":
        lines.append(f"{outcome.id} played: {len(outcome.games)} games, unranked")
    else:
        lines.append(f"{outcome.id or 'the request'} {outcome.state}: {outcome.reason}")
    return lines


COMMANDS = {"request": cmd_request}


async def admin_requests(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    args: argparse.Namespace,
    console: Console,
) -> int:
    """`arena admin requests [--author NAME]`: the organiser's view, one line a request."""
    listing = await stub.ListRequests(
        apb.ListRequestsRequest(author=args.author or ""), metadata=metadata, timeout=10
    )
    if not listing.requests:
        console.print("No requests for test games.")
        return 0
    for r in listing.requests:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.requested))
        why = f"  {r.reason}" if r.reason else ""
        line = (
            f"{r.id}  {r.name:<20} {when}  {r.state:<11} {r.played}/{r.games} games  "
            f"{', '.join(r.seats)}{why}"
        )
        console.print(printable(line), highlight=False, markup=False, soft_wrap=True)
    return 0
