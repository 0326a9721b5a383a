"""`arena admin ladder start|stop|status`: the ladder of a running league server."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from arena.matchmaking import tables_of
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

ACTIONS = {
    "start": apb.LadderRequest.ACTION_START,
    "stop": apb.LadderRequest.ACTION_STOP,
    "status": apb.LadderRequest.ACTION_STATUS,
}


async def ladder_action(
    stub: apb_grpc.AdminServiceStub,
    metadata: list[tuple[str, str]],
    args: argparse.Namespace,
    console: Console,
) -> int:
    action = args.target or "status"  # `arena admin ladder` alone: its status
    # A stop waits for the games in flight: as long as a game may take.
    request = apb.LadderRequest(action=ACTIONS[action])
    reply: Any = await stub.Ladder(request, metadata=metadata, timeout=None)
    console.print(_headline(reply), highlight=False, markup=False)
    for table in reply.tables:
        seats = ", ".join(table.seats)
        console.print(f"In play ({table.round}): {seats}", highlight=False, markup=False)
    for out in reply.sitting_out:
        console.print(
            f"Sitting out: {out.name}, {out.seconds:.0f} s more ({out.why})",
            highlight=False,
            markup=False,
        )
    if reply.error and reply.running:
        console.print(f"Trouble: {reply.error}", highlight=False, markup=False)
    if reply.standings:
        board = Table(title="Ladder (TrueSkill)", title_justify="left", header_style="bold")
        for column in ("#", "bot", "version", "mu - 3 sigma", "mu", "sigma", "games"):
            board.add_column(column, justify="left" if column == "bot" else "right")
        for place, row in enumerate(reply.standings, start=1):
            board.add_row(
                str(place),
                Text(row.name),  # a bot's name is its author's: never read as markup
                f"v{row.version}" if row.version else "dialled in",
                f"{row.mu - 3 * row.sigma:.1f}",
                f"{row.mu:.1f}",
                f"{row.sigma:.2f}",
                str(row.games),
            )
        console.print(board)
    if reply.latest:
        console.print("Latest games:", highlight=False)
        for game in reply.latest:
            console.print(
                f"  {game.round}/{game.game_id}: {', '.join(game.ranking)}",
                highlight=False,
                markup=False,
            )
    return 0


def _headline(reply: Any) -> str:
    if reply.paused:
        return f"The ladder is paused for a league night ({tables_of(reply.table_sizes)})."
    if reply.running and not reply.tables and not reply.error:  # whom it waits for, said
        # (riding out a fault, it waits for that: the trouble line beneath says which)
        fewest = min(reply.table_sizes, default=2)
        return (
            f"The ladder is running ({tables_of(reply.table_sizes)}), waiting for entrants: "
            f"it seats a table once {fewest} can play, each connected or with an accepted "
            f"version, and not sitting out."
        )
    if reply.running:
        return f"The ladder is running ({tables_of(reply.table_sizes)})."
    if reply.error:  # it stopped by itself: why, and the way out
        return f"The ladder is {reply.error}."
    return "The ladder is stopped."
