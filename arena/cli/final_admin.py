"""`arena admin final start|status`: the season's final on a running league server.

`start` closes submissions and plays the final in the live view, as `arena admin start`
plays a night, then prints the season's final standings; `status` prints how the final
stands (its field while it plays, its standings with their intervals once over).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


async def final_action(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    args: argparse.Namespace,
    console: Console,
) -> int:
    if args.target != "start":  # `arena admin final` alone: its status
        reply = await stub.GetFinal(apb.GetFinalRequest(), metadata=metadata, timeout=10)
        print_final(reply, console)
        return 0
    # the night's request and live view are `arena admin start`'s, which imports this module
    from arena.cli.admin import follow_night, night_request

    request = apb.StartFinalRequest(night=night_request(args, console))
    if args.top is not None:
        request.top = args.top
    stream = stub.StartFinal(request, metadata=metadata)
    code = await follow_night(stub, metadata, stream, args, console)
    reply = await stub.GetFinal(apb.GetFinalRequest(), metadata=metadata, timeout=10)
    print_final(reply, console)
    return code


def print_final(reply: Any, console: Console) -> None:
    """How the final stands, in a sentence and (once it has them) its standings."""
    closed = "closed" if reply.submissions_closed else "open"
    if not reply.state:
        console.print(f"No final has been played here; submissions are {closed}.")
        return
    when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(reply.frozen_at))
    console.print(
        f"The season's final ({reply.tournament}) is {reply.state}; submissions closed at "
        f"{when} and are {closed} now.",
        highlight=False,
        markup=False,
    )
    if reply.outcome:
        console.print(reply.outcome, highlight=False, markup=False)
    level = f" ({reply.level:.0%} intervals)" if reply.HasField("level") else ""
    title = "Final standings (batch fit)" if reply.state == "finished" else "Field"
    board = Table(title=title + level, title_justify="left", header_style="bold")
    for column in ("#", "bot", "version", "strength", "interval", "places", "games", "wins"):
        board.add_column(column, justify="left" if column == "bot" else "right")
    for place, e in enumerate(reply.entrants, start=1):
        fitted = e.HasField("strength")
        board.add_row(
            str(place),
            Text(e.name),  # a bot's name is its author's: never read as markup
            f"v{e.version}",
            f"{e.strength:.2f}" if fitted else "",
            f"{e.low:.2f} .. {e.high:.2f}" if fitted else "",
            f"{e.rank_low}-{e.rank_high}" if e.HasField("rank_low") else "",
            str(e.games),
            str(e.wins),
        )
    console.print(board)
