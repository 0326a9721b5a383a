"""Games as JSON lines, each its replay file's fields and its tournament: what `arena league
export` writes, and the author page's download (`arena.web.portal.author_export`) streams.

Each line is a game's replay file as it is on disk (its events, dice, times,
the ranking), with the `tournament` it was played in, so that
`TOURNAMENT/GAME` names it across the league as `arena replay` takes it. The
caller chooses the games and their order; here each is found in the results
folders (each tournament's folder looked for once, not once per game) and
written, and a game whose replay cannot be read is said, never skipped
without a word.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.records import GameLine
from arena.tournament.results.days import DayIndex
from arena.tournament.results.replays import ReplayLookup, Replays


@dataclass(frozen=True, slots=True)
class Exported:
    games: int
    problems: tuple[str, ...]
    """Games the league holds whose replay could not be read, each with why."""
    pruned: int = 0
    """Games whose replays `arena league prune` let go: on record, with nothing to export."""


def write_games(
    games: Iterable[tuple[str, GameLine]], results: Sequence[Path], out: TextIO
) -> Exported:
    """Write these games (chosen by the caller, in its order) as `export` writes them: for
    the author's page, which keeps the league's lines and streams an author's own."""
    return _write(games, _folder_finder(results), out)


def _folder_finder(results: Sequence[Path]) -> Callable[[str], Replays | None]:
    """Where each tournament's replays are (its folder, or its round folded into its day's
    record), looked for once per tournament, not per game."""
    found: dict[str, Replays | None] = {}
    lookups = [ReplayLookup(root, DayIndex(root)) for root in results]

    def find(tournament: str) -> Replays | None:
        if tournament not in found:
            kept = (lookup.replays(tournament) for lookup in lookups)
            found[tournament] = next((r for r in kept if r is not None), None)
        return found[tournament]

    return find


def _write(
    games: Iterable[tuple[str, GameLine]], find: Callable[[str], Replays | None], out: TextIO
) -> Exported:
    count = let_go = 0
    problems: list[str] = []
    for tournament, line in games:
        replays = find(tournament)
        if replays is None:
            problems.append(f"{tournament}/{line.game}: no results folder holds {tournament}")
            continue
        if replays.pruned(line.game):
            let_go += 1
            continue
        read = replays.read(line)
        if isinstance(read, str):
            problems.append(f"{tournament}/{line.game}: its replay cannot be read: {read}")
            continue
        data = read.to_json()
        data["tournament"] = tournament  # a replay from before it was kept says none
        out.write(json.dumps(data, separators=(",", ":")) + "\n")
        count += 1
    return Exported(count, tuple(problems), let_go)
