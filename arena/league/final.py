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
import enum
import json
import os
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from secrets import token_hex
from typing import Any

from arena.errors import ArenaError
from arena.rankings.level import LEVEL
from arena.store import LeagueStore
from arena.store.submissions import SubmissionRow
from arena.tournament.config import TournamentConfig
from arena.tournament.report.summary import RunReport
from arena.tournament.schedule.round_robin import Deals

PREFIX = "final-"
"""The start of every final's tournament name: the mark that tells it from a night."""
RECORD_FILE = "final.json"
DEFAULT_GAMES = 1000
"""The final's budget of games unless the organiser gives `--games`: as many as the
anchors' finals play (CodinGame reruns its top at least 1,000 matches); with
`--until-confident` it ends sooner once the order is known."""
FROZEN = (
    "submissions are closed: the season is in its final; they open again when the final "
    "ends (ask the organiser)"
)
"""What an author who submits during the final is told."""


class FinalError(ArenaError):
    """The final cannot be played now; the message says why and what to do."""


class FinalState(enum.Enum):
    PLAYING = "playing"
    """Submissions closed, the night under way."""
    FINISHED = "finished"
    """Played to its end: the standings are the season's final ones."""
    STOPPED = "stopped"
    """Stopped or failed before its end (`arena admin final start --resume` goes on)."""


@dataclass(frozen=True, slots=True)
class FinalEntrant:
    """An entrant of the final: the version that plays it, and its rating with its interval
    once the final is over."""

    name: str
    version: int
    sha256: str
    strength: float | None = None
    """The batch fit's strength (None until the final has a fit)."""
    low: float | None = None
    high: float | None = None
    """The strength's interval at the fit's level."""
    rank_low: int | None = None
    rank_high: int | None = None
    """The places the entrant may hold at that level."""
    games: int = 0
    wins: int = 0


@dataclass(frozen=True, slots=True)
class FinalRecord:
    """How the final stands: `final.json`, written at the freeze and at the end."""

    state: FinalState
    frozen_at: float
    """When submissions closed (Unix time)."""
    tournament: str
    """The final's tournament, a folder of the results folder and a tournament of the store."""
    entrants: tuple[FinalEntrant, ...]
    """By name while it plays; best first, by the batch fit, once it is over."""
    ended_at: float | None = None
    level: float | None = None
    """The level of the standings' intervals."""
    outcome: str = ""
    """How it ended: the order known, the budget spent, or why it stopped."""

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["state"] = self.state.value
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FinalRecord:
        try:
            return cls(
                state=FinalState(data["state"]),
                frozen_at=float(data["frozen_at"]),
                tournament=str(data["tournament"]),
                entrants=tuple(FinalEntrant(**e) for e in data["entrants"]),
                ended_at=data.get("ended_at"),
                level=data.get("level"),
                outcome=str(data.get("outcome", "")),
            )
        except (KeyError, TypeError, ValueError) as error:
            raise FinalError(f"{RECORD_FILE} is not a final's record ({error})") from None


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


def write_record(out: Path, record: FinalRecord) -> None:
    """`final.json`, replaced whole (a reader never sees half of it)."""
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(record.to_json(), indent=1) + "\n"
    fd, staging = tempfile.mkstemp(prefix=".final-", dir=out)
    try:
        with os.fdopen(fd, "w") as file:
            file.write(text)
        os.replace(staging, out / RECORD_FILE)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise


def read_record(out: Path) -> FinalRecord | None:
    """The final's record, or None when no final was begun here."""
    try:
        text = (out / RECORD_FILE).read_text()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise FinalError(f"cannot read {out / RECORD_FILE}: {error}") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise FinalError(f"{out / RECORD_FILE} is not JSON ({error})") from None
    return FinalRecord.from_json(data)
