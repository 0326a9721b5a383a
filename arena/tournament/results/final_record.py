"""A season's final as the results folder keeps it: `final.json`, how the final stands.

The league server writes it (`arena.league.final`) at the freeze and at the end; the
league's pages and `arena admin final status` read it. It lives with the results, below
both, so that a page reads it without loading the league server.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.errors import ArenaError

RECORD_FILE = "final.json"


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
