"""`arena author NAME`: an entrant's season from the league store, as its page shows it.

Its versions first (each one's state, and with --build-log its build log),
then how it fares against each opponent (games, finished ahead, the 95%
Wilson interval), then a page of its games, each with the version that
played it, filtered as the page filters them (`arena.web.portal.author_games`):
the same words, the same filter, the same page size.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.table import Table
from rich.text import Text

from arena.cli import validate
from arena.errors import ArenaError
from arena.protocol.faults import FaultKind
from arena.store import open_store
from arena.text import printable
from arena.web.portal.author_games import (
    ANY_FAULT,
    NO_FAULT,
    RESULTS,
    GameFilter,
    Page,
    author_games,
    head_to_head,
    paged,
    pinned_versions,
)

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from arena.store.submissions import SubmissionRow


class UnknownAuthorError(ArenaError):
    """The league holds no entrant, version or game under the name asked for."""


def add_command(commands: Any) -> None:
    author = commands.add_parser(
        "author",
        help="an entrant's season: its versions, how it fares against each opponent, its games",
    )
    author.add_argument("name", help="the entrant's name, as `arena token add` registered it")
    author.add_argument(
        "--league",
        type=validate.league_store,
        default=Path("results/league.sqlite"),
        help="the league store to read (default: %(default)s)",
    )
    author.add_argument(
        "--version", type=int, metavar="N", help="only the games its version N played"
    )
    author.add_argument("--opponent", metavar="NAME", help="only the games against this bot")
    author.add_argument("--result", choices=RESULTS, help="only the games it won, or did not")
    kinds = [ANY_FAULT, NO_FAULT, *(k.value for k in FaultKind)]
    author.add_argument(
        "--fault",
        choices=kinds,
        help="only the games with a fault of its own of this kind (any, none, or a kind)",
    )
    author.add_argument(
        "--page", type=int, default=1, metavar="N", help="which page of games (default: 1)"
    )
    author.add_argument(
        "--build-log", action="store_true", help="print each version's build log too"
    )
    author.add_argument("--json", action="store_true", help="print JSON")


def cmd_author(args: argparse.Namespace, console: Console) -> int:
    query = {
        key: str(value)
        for key in ("version", "opponent", "result", "fault", "page")
        if (value := getattr(args, key)) is not None
    }
    wanted = GameFilter.from_query(query)  # the page's words for what means nothing
    store = open_store(args.league)
    try:
        versions = store.submissions(args.name)
        games = author_games(store.lines(), pinned_versions(store.tournament_infos()), args.name)
    finally:
        store.close()
    if not versions and not games:
        raise UnknownAuthorError(
            f"the league {args.league} has no version and no game of {args.name!r}: check "
            "the name (`arena token list` lists the entrants)"
        )
    page = paged(games, wanted)
    rows = head_to_head(args.name, games)
    if args.json:
        console.print_json(json.dumps(_json(args.name, versions, page, rows)))
        return 0
    console.print(_versions(versions) if versions else "No version was sent (a bot dialled in).")
    if args.build_log:
        for row in versions:
            console.print(Text(f"build log of {_label(row)}:", style="bold"))
            console.print(Text(printable(row.build_log)), soft_wrap=True)
    against = _table("Against each opponent", ("against", "games", "ahead", "share", "95%"))
    for r in rows:
        share, low, high = (f"{100 * x:.0f}%" for x in (r.share, r.low, r.high))
        against.add_row(
            Text(printable(r.opponent)), str(r.games), str(r.ahead), share, f"{low}-{high}"
        )
    console.print(against)
    console.print(_games(args.name, page))
    return 0


def _label(row: SubmissionRow) -> str:
    return f"version {row.version}" if row.version is not None else "not a version"


def _table(title: str, headers: tuple[str, ...]) -> Table:
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, header_style="bold")
    for header in headers:
        table.add_column(header)
    return table


def _versions(versions: list[SubmissionRow]) -> Table:
    table = _table("Versions", ("version", "state", "sent", "why"))
    for row in versions:
        state = row.state.value + (" (withdrawn)" if row.withdrawn else "")
        sent = time.strftime("%Y-%m-%d %H:%M", time.gmtime(row.received))
        table.add_row(_label(row), state, sent, Text(printable(row.reason or "")))
    return table


def _games(name: str, page: Page) -> Table:
    title = f"Games: {page.kept}, newest first, page {page.number} of {page.pages}"
    table = _table(title, ("tournament", "game", "version", "place", "with", "faults"))
    for g in page.games:
        faults = ", ".join(f.fault.kind.value for f in g.faults)
        table.add_row(
            Text(printable(g.tournament)),
            Text(printable(g.game)),
            "" if g.version is None else f"v{g.version}",
            f"{g.place} of {len(g.players)}",
            Text(printable(", ".join(g.opponents(name)))),
            Text(faults, style="red"),
        )
    return table


def _json(name: str, versions: list[SubmissionRow], page: Page, rows: list[Any]) -> object:
    return {
        "name": name,
        "versions": [
            {"version": r.version, "state": r.state.value, "received": r.received} for r in versions
        ],
        "head_to_head": [
            {
                "opponent": r.opponent,
                "games": r.games,
                "ahead": r.ahead,
                "low": r.low,
                "high": r.high,
            }
            for r in rows
        ],
        "games": {
            "kept": page.kept,
            "page": page.number,
            "pages": page.pages,
            "rows": [
                {
                    "tournament": g.tournament,
                    "game": g.game,
                    "version": g.version,
                    "place": g.place,
                    "players": list(g.players),
                    "faults": [f.fault.kind.value for f in g.faults],
                }
                for g in page.games
            ],
        },
    }


COMMANDS = {"author": cmd_author}
