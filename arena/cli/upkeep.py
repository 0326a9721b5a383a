"""`arena league check`, `rebuild`, `remove` and `prune`: the league store kept true to its
results folders, which are the record (`arena.tournament.results.upkeep`), and the folders
kept to what is worth keeping."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from arena.store import is_url, open_store, shown
from arena.text import printable
from arena.tournament.config import TournamentError
from arena.tournament.results.pruning import prune
from arena.tournament.results.upkeep.check import Checked, check
from arena.tournament.results.upkeep.rebuild import rebuild

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def own_results(league: Path | str) -> Path:
    """The league's own results folder, read when no --results is given: beside an SQLite
    file, `results` for a PostgreSQL league."""
    return Path("results") if is_url(league) else Path(league).parent


def cmd_check(args: argparse.Namespace, console: Console) -> int:
    """Every difference on a line of its own; 1 when there is any."""
    league: Path | str = args.league
    results: list[Path] = args.results or [own_results(league)]
    checked = check(league, results, full=args.full)
    where = shown(str(league)) if is_url(league) else str(league)
    folders = " ".join(f"--results {root}" for root in results)

    def say(text: str, style: str | None = None) -> None:
        console.print(text, highlight=False, markup=False, soft_wrap=True, style=style)

    for note in checked.notes:
        say(f"  ! {note}", "yellow")
    for difference in checked.differences:
        say(f"  {difference}")
    if not checked.differences:
        say(
            f"The league {where} agrees with its folders: {checked.tournaments} tournaments, "
            f"{checked.games} games."
        )
        return 0
    if is_url(league):
        repair = (
            f"take each tournament named out with `arena league remove NAME --league {where}`, "
            f"then `arena league rebuild --league {where} {folders}` puts its folder's games back"
        )
    else:
        repair = (
            f"`arena league rebuild --league {where} {folders}` makes the league again from them"
        )
    say(
        f"The league {where} differs from its folders: {_differences(checked)} above; "
        f"the folders are the record: {repair}.",
        "red",
    )
    return 1


def _differences(checked: Checked) -> str:
    count = len(checked.differences)
    return f"{count} difference{'' if count == 1 else 's'}"


def cmd_rebuild(args: argparse.Namespace, console: Console) -> int:
    rebuilt = rebuild(args.league, args.results or [own_results(args.league)])
    for tournament, games in rebuilt.tournaments:
        console.print(f"  {tournament}: {games} games", highlight=False, markup=False)
    for note in rebuilt.notes:
        console.print(f"  ! {printable(note)}", highlight=False, markup=False, style="yellow")
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


def cmd_remove(args: argparse.Namespace, console: Console) -> int:
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


def cmd_prune(args: argparse.Namespace, console: Console) -> int:
    if args.before is None:
        raise TournamentError(
            "arena league prune needs --before WHEN: the games whose replays and logs go"
        )
    done = prune(args.results or [own_results(args.league)], args.before)
    console.print(
        f"Pruned {done.games} games in {done.tournaments} tournaments: "
        f"{done.bytes / 1024 / 1024:.1f} MiB of replays and logs let go; their results, the "
        "ratings and `arena verify` of every game kept stand.",
        highlight=False,
    )
    return 0
