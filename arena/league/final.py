"""The season's final: who plays it, how it is asked to be played, and its published record.

A season ends on standings the organiser can stand behind: submissions close at
one moment, every entrant's latest accepted version (or the ladder's top N
entrants') plays one night of duplicate deals until the batch fit separates
them, and the fit's strengths with their intervals are the final standings.
The night is an ordinary league night (`arena admin start`'s path: its folder,
journal, replays and store rows, so `arena verify` checks it as any night),
named `final-...` so that it is told apart; `final.json` in the results folder
says how the final stands, for `arena admin final status` and the league page.

Why the latest version and not the one an author chose to play: the ladder lets
an author keep an older version playing while a new one is tried, but a final
is the season's last word on each author's work, and the last version they
sent is the one they stand behind (an organiser who disagrees withdraws it).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from secrets import token_hex
from typing import Any

from arena.rankings.level import LEVEL
from arena.store import LeagueStore
from arena.store.submissions import SubmissionRow
from arena.tournament.config import TournamentConfig
from arena.tournament.report.summary import RunReport
from arena.tournament.results.final_record import FinalEntrant
from arena.tournament.schedule.round_robin import Deals

PREFIX = "final-"
"""The start of every final's tournament name: the mark that tells it from a night."""
DEFAULT_GAMES = 1000
"""The final's budget of games unless the organiser gives `--games`: as many as the
anchors' finals play (CodinGame reruns its top at least 1,000 matches); with
`--until-confident` it ends sooner once the order is known."""
FROZEN = (
    "submissions are closed: the season is in its final; they open again when the final "
    "ends (ask the organiser)"
)
"""What an author who submits during the final is told."""


def is_final(tournament_id: str) -> bool:
    """Whether a tournament of the league is a season's final."""
    return tournament_id.startswith(PREFIX)


def latest_versions(
    store: LeagueStore, names: Sequence[str] | None = None
) -> dict[str, SubmissionRow]:
    """Each entrant's (with an active token; of `names` if given) latest accepted version
    that the organiser has not withdrawn."""
    active = set(store.entrants())
    wanted = active if names is None else active & set(names)
    latest: dict[str, SubmissionRow] = {}
    for row in store.submissions():
        if row.name in wanted and row.playable and row.version is not None:
            held = latest.get(row.name)
            if held is None or (held.version or 0) < row.version:
                latest[row.name] = row
    return latest


def field_of(store: LeagueStore, board: Sequence[str], top: int | None) -> dict[str, SubmissionRow]:
    """The final's field: every entrant's latest version, or with `top` the first `top`
    entrants of the ladder's `board` (best first) that have a version to play."""
    latest = latest_versions(store)
    if top is None:
        return latest
    chosen = [name for name in dict.fromkeys(board) if name in latest][:top]
    return {name: latest[name] for name in chosen}


def final_config(
    config: TournamentConfig, entrants: int, given: Mapping[str, Any]
) -> TournamentConfig:
    """The night as the final plays it: the organiser's options, and unless given, duplicate
    deals (where the field has two tables' worth), play until confident at the usual level
    within a budget of DEFAULT_GAMES, and a name that marks it as the final."""
    size = config.table_size or min(entrants, 6)
    changes: dict[str, Any] = {}
    if "deals" not in given and entrants >= 2 * size:
        changes["deals"] = Deals.DISJOINT
    if "until_confident" not in given:
        changes["until_confident"] = LEVEL
    if "games" not in given:
        changes["games"] = DEFAULT_GAMES
    # as a night's default name, its time and a few random letters: two finals never share one
    name = config.name or time.strftime("%Y%m%d-%H%M%S", time.gmtime()) + "-" + token_hex(3)
    changes["name"] = name if is_final(name) else PREFIX + name
    return dataclasses.replace(config, **changes)


def standings_of(report: RunReport, field: Mapping[str, FinalEntrant]) -> tuple[FinalEntrant, ...]:
    """The entrants with the batch fit's strengths and intervals, best first; by TrueSkill's
    order (with no interval) where the fit was given up."""
    table = {s.name: s for s in report.table}
    if report.sure is not None:
        order = [b.name for b in sorted(report.sure.bots, key=lambda b: -b.strength)]
    else:
        order = [s.name for s in report.table]
    order += sorted(set(field) - set(order))  # an entrant that never played: last
    rows = []
    for name in order:
        entrant = field.get(name)
        if entrant is None:
            continue
        standing = table.get(name)
        games, wins = (standing.games, standing.wins) if standing is not None else (0, 0)
        fit = report.sure.bot(name) if report.sure is not None else None
        if fit is None:
            rows.append(dataclasses.replace(entrant, games=games, wins=wins))
            continue
        rows.append(
            dataclasses.replace(
                entrant,
                strength=fit.strength,
                low=fit.low,
                high=fit.high,
                rank_low=fit.rank_low,
                rank_high=fit.rank_high,
                games=games,
                wins=wins,
            )
        )
    return tuple(rows)
