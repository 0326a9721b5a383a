"""A tournament on the league server as its admin stream tells it: one event per happening.

The payloads are JSON in the tournament files' own forms (games.jsonl lines,
leaderboard.json rows), so `arena admin start` reads them as `arena run`
reads its own; the end event carries the batch fit's confidence as well, so
that its leaderboard has the columns `arena run`'s has.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
from pathlib import Path

from arena.protocol.messages import admin as apb
from arena.rankings import BotConfidence, Confidence
from arena.records import GameLine, Json
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress, Summary


class EventObserver:
    """Turns a tournament's progress into admin events, for whoever is listening."""

    def __init__(self) -> None:
        self.listeners: set[asyncio.Queue[apb.TournamentEvent]] = set()
        self.progress: Progress | None = None
        self.folder: Path | None = None

    def emit(self, event: apb.TournamentEvent) -> None:
        """Queue `event` for every admin stream following the tournament."""
        for queue in self.listeners:
            queue.put_nowait(event)

    def note(self, text: str) -> None:
        self.emit(apb.TournamentEvent(note=text))

    def building(self, name: str, running: bool) -> None:
        self.emit(apb.TournamentEvent(build_json=json.dumps({"name": name, "running": running})))

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.progress = progress
        self.folder = folder
        data = {
            "folder": str(folder),
            "entrants": entrants,
            "done": progress.done,
            "total": progress.total,
        }
        self.emit(apb.TournamentEvent(started_json=json.dumps(data)))

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.progress = progress
        data = {
            "line": line.to_json(),
            "table": rows(table),
            "done": progress.done,
            "total": progress.total,
            "played_now": progress.played_now,
            "elapsed": time.monotonic() - progress.started,
        }
        self.emit(apb.TournamentEvent(game_json=json.dumps(data)))


def rows(table: list[Standing]) -> list[Json]:
    return [s.row(rank).to_json() for rank, s in enumerate(table, start=1)]


def finished_event(summary: Summary) -> apb.TournamentEvent:
    """The end of a tournament: the standings (with the fit's rank range and P(rank 1) when
    it was made), the confidence behind them, and what `arena run` reports at its end."""
    board = summary.board
    data: Json = {
        "folder": str(summary.folder),
        "status": summary.status,
        "table": [r.to_json() for r in board.rows()] if board else rows(summary.table),
        "games": summary.games,
        "total": summary.total,
        "seed": summary.seed_hex,
        "skipped": summary.skipped,
        "faults": summary.faults,
        "slowest": [dataclasses.asdict(d) for d in summary.slowest],
        "times": [t.to_json() for t in summary.times],
        "notes": list(summary.notes),
    }
    if board is not None:
        if board.sure is not None:
            data["sure"] = dataclasses.asdict(board.sure)
        data["separation"] = board.separation()
    if summary.outcome is not None:
        data["outcome"] = summary.outcome
    return apb.TournamentEvent(finished_json=json.dumps(data))


def confidence_from_json(data: Json) -> Confidence:
    """The `sure` of an end event, as the tournament had it."""
    bots = tuple(
        BotConfidence(
            name=b["name"],
            strength=b["strength"],
            low=b["low"],
            high=b["high"],
            rank_probabilities=tuple(b["rank_probabilities"]),
            rank_low=b["rank_low"],
            rank_high=b["rank_high"],
        )
        for b in data["bots"]
    )
    return Confidence(
        bots=bots,
        level=data["level"],
        resamples=data["resamples"],
        games=data["games"],
        groups=data["groups"],
        ahead=tuple(tuple(row) for row in data["ahead"]),
    )
