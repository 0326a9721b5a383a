"""`arena leaderboard`: the league's standings, of every tournament or of those chosen.

Games played under different rules or at different table sizes are different
contests; rating them together pools a 6-player rulebook night with a 3-die
no-calza one. The filters choose tournaments by what their tournament.json
recorded, and only their games are rated.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

from arena.cli import validate
from arena.league.ladder.rounds import is_ladder
from arena.store import open_store
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.kinds import MAX_TABLE
from engine import PRESETS, Ruleset, RulesetError, preset

if TYPE_CHECKING:
    import argparse

    from rich.console import Console

    from arena.rankings import Pairing


def add_command(commands: Any) -> None:
    board = commands.add_parser("leaderboard", help="show the league standings")
    board.add_argument(
        "--league",
        type=validate.league_store,
        default=Path("results/league.sqlite"),
        help="the league store: an SQLite file, or a postgresql:// URL",
    )
    board.add_argument("--json", action="store_true", help="print JSON")
    board.add_argument(
        "--cross",
        action="store_true",
        help="the cross-table instead: for every two bots, games together and how often each "
        "finished ahead, with a 95%% interval",
    )
    board.add_argument(
        "--tournament",
        action="append",
        default=[],
        metavar="ID",
        help="only this tournament's games (repeatable)",
    )
    board.add_argument(
        "--rules", choices=sorted(PRESETS), help="only tournaments played under this preset"
    )
    board.add_argument(
        "--rule",
        action="append",
        default=[],
        type=validate.rule_field,
        metavar="FIELD=VALUE",
        help="only tournaments whose ruleset has this value (repeatable), e.g. dice_per_player=3",
    )
    board.add_argument(
        "--table-size",
        type=validate.int_between(2, MAX_TABLE),
        help="only tournaments with tables of this size",
    )
    which = board.add_mutually_exclusive_group()
    which.add_argument("--ladder", action="store_true", help="only the ladder's games (its rounds)")
    which.add_argument(
        "--nights", action="store_true", help="only the nights' games, not the ladder's"
    )


_ABSENT = object()


def _chosen(args: argparse.Namespace, infos: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The tournaments the filters keep: rating games of different rules together misleads."""
    known = [tid for tid, _ in infos]
    unknown = [t for t in args.tournament if t not in known]
    if unknown:
        raise TournamentError(
            f"no tournament {', '.join(unknown)} in the league (it has: {', '.join(known)})"
        )
    rules = preset(args.rules).to_mapping() if args.rules else None
    played = {tid: _played_under(info) for tid, info in infos}
    return [
        tid
        for tid, info in infos
        if (not args.tournament or tid in args.tournament)
        and (rules is None or played[tid] == rules)
        and all(played[tid].get(k, _ABSENT) == v for k, v in args.rule)
        and (args.table_size is None or info.get("table_size") == args.table_size)
        and not (args.ladder and not is_ladder(tid))
        and not (args.nights and is_ladder(tid))
    ]


def _played_under(info: dict[str, Any]) -> dict[str, Any]:
    """A tournament's ruleset as today's fields spell it: one stored before a field existed
    played by its default, and the old face-change bool reads as the field that replaced it."""
    stored = info.get("ruleset")
    if not isinstance(stored, dict):
        return {}
    try:
        return Ruleset.from_mapping(stored).to_mapping()
    except RulesetError:
        return {}


def cmd_leaderboard(args: argparse.Namespace, console: Console) -> int:
    # The ratings and their table: loaded to show the board, not for `arena --help`.
    from arena.cli.standings import leaderboard_table
    from arena.tournament.report.standings import board

    if isinstance(args.league, Path) and not args.league.exists():
        raise TournamentError(f"no league store at {args.league}; run a tournament first")
    store = open_store(args.league)
    try:
        filtered = bool(
            args.tournament
            or args.rules
            or args.rule
            or args.table_size
            or args.ladder
            or args.nights
        )
        chosen = _chosen(args, store.tournament_infos())
        lines = store.lines(set(chosen)) if filtered else store.lines()
        counts = dict(store.tournaments())
    finally:
        store.close()
    standings = board(lines)
    if args.cross:
        return _print_cross(args, console, standings.cross)
    if args.json:
        print(json.dumps([row.to_json() for row in standings.rows()], indent=2))
        return 0
    games = sum(counts.get(tid, 0) for tid in chosen)
    which = f" (of {len(counts)}, filtered)" if filtered else ""
    title = f"League: {len(chosen)} tournaments{which}, {games} games"
    console.print(leaderboard_table(standings.table, title, sure=standings.sure))
    console.print(standings.separation(), highlight=False, markup=False)
    return 0


def _print_cross(args: argparse.Namespace, console: Console, pairings: list[Pairing]) -> int:
    if args.json:
        print(json.dumps([p.to_json() for p in pairings], indent=2))
        return 0
    console.print(cross_view(pairings))
    return 0


def cross_view(pairings: list[Pairing]) -> Table:
    """One row a pair, within 80 columns however many bots: a matrix of n bots would not be."""
    view = Table(
        title="Cross-table: A against B at the same table",
        title_justify="left",
        header_style="bold",
        box=None,
        pad_edge=False,
        padding=(0, 0, 0, 1),
    )
    view.add_column("A", overflow="fold", min_width=10)
    view.add_column("B", overflow="fold", min_width=10)
    for header in ("games", "A ahead", "share", "95% interval"):
        view.add_column(header, justify="right", no_wrap=True)
    for p in pairings:
        view.add_row(
            Text(printable(p.first)),  # bot names: the bots' own text, never markup
            Text(printable(p.second)),
            str(p.games),
            str(p.ahead),
            f"{100 * p.share:.1f}%",
            f"{100 * p.low:.1f}-{100 * p.high:.1f}%",
        )
    view.caption = "share: of the games A and B played together, those A finished ahead of B"
    view.caption_justify = "left"
    return view
