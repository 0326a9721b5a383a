"""A tournament on the league server as its admin stream tells it: one typed event per
happening, and the same happenings told again on the organiser's side.

The server's `EventObserver` turns what an `Observer` is told into events;
`tell` turns each event back into the same call on the organiser's observer
(the live view of `arena admin start`), so that view follows a tournament on
the server exactly as `arena run`'s follows its own, and ends on the same
`RunReport`.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from arena.league.admin_messages import (
    game_line_from_proto,
    game_line_to_proto,
    progress_from_proto,
    progress_to_proto,
    report_from_proto,
    report_to_proto,
    standing_from_proto,
    standing_to_proto,
    wire_text,
    wire_texts,
)
from arena.protocol.messages import admin as apb
from arena.records import GameLine
from arena.tournament.config import TournamentError
from arena.tournament.play.observer import Observer, Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import RunReport

LAST = frozenset({"finished", "error"})
"""The kinds of event that end a stream."""


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
        self.emit(apb.TournamentEvent(note=wire_text(text)))

    def building(self, name: str, running: bool) -> None:
        self.emit(apb.TournamentEvent(build=apb.BuildChanged(bot=wire_text(name), running=running)))

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.progress = progress
        self.folder = folder
        started = apb.TournamentStarted(
            folder=wire_text(str(folder)),
            entrants=wire_texts(entrants),
            progress=progress_to_proto(progress, time.monotonic()),
        )
        self.emit(apb.TournamentEvent(started=started))

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.progress = progress
        game = apb.GameFinished(
            line=game_line_to_proto(line),
            table=[standing_to_proto(s) for s in table],
            progress=progress_to_proto(progress, time.monotonic()),
        )
        self.emit(apb.TournamentEvent(game=game))

    def finished(self, report: RunReport) -> None:
        self.emit(apb.TournamentEvent(finished=report_to_proto(report)))

    def failed(self, why: str) -> None:
        self.emit(apb.TournamentEvent(error=wire_text(why)))


def tell(event: apb.TournamentEvent, observer: Observer) -> RunReport | None:
    """Tell `observer` what `event` says; the report when it is the tournament's end.

    An error event, or one this arena cannot read (from a server of another
    version), is a `TournamentError` saying so.
    """
    kind = event.WhichOneof("kind")
    if kind == "note":
        observer.note(event.note)
    elif kind == "build":
        observer.building(event.build.bot, event.build.running)
    elif kind == "started":
        started = event.started
        progress = progress_from_proto(started.progress, time.monotonic())
        observer.started(Path(started.folder), list(started.entrants), progress)
    elif kind == "game":
        game = event.game
        observer.game_finished(
            game_line_from_proto(game.line),
            [standing_from_proto(s) for s in game.table],
            progress_from_proto(game.progress, time.monotonic()),
        )
    elif kind == "finished":
        return report_from_proto(event.finished)
    elif kind == "error":
        raise TournamentError(event.error)
    else:
        raise TournamentError(
            "the league server sent an event this arena does not know: "
            "is it running another version of the arena?"
        )
    return None
