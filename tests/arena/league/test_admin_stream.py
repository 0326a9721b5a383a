"""Every admin event, sent by the server's observer and told again on the organiser's side
through the bytes of the wire, tells the organiser's observer what the server's was told."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_admin_messages import lines, reports, standings

from arena.league.admin_stream import LAST, EventObserver, tell
from arena.protocol.messages import admin as apb
from arena.records import GameLine
from arena.tournament.config import TournamentError
from arena.tournament.play.observer import Progress
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import RunReport


class Told:
    """An observer keeping every call, as the organiser's live view gets them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def note(self, text: str) -> None:
        self.calls.append(("note", text))

    def building(self, name: str, running: bool) -> None:
        self.calls.append(("building", (name, running)))

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self.calls.append(("started", (folder, entrants, progress)))

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self.calls.append(("game_finished", (line, table, progress)))


def _through_the_wire(server: EventObserver, queue: asyncio.Queue[apb.TournamentEvent]) -> Told:
    """Each event queued for a stream, as its bytes, told to an observer on the other side."""
    told = Told()
    while not queue.empty():
        event = apb.TournamentEvent.FromString(queue.get_nowait().SerializeToString())
        assert event.WhichOneof("kind") not in LAST
        assert tell(event, told) is None
    return told


def _server() -> tuple[EventObserver, asyncio.Queue[apb.TournamentEvent]]:
    server = EventObserver()
    queue: asyncio.Queue[apb.TournamentEvent] = asyncio.Queue()
    server.listeners.add(queue)
    return server, queue


def _same_progress(got: Progress, sent: Progress, sending: float) -> bool:
    """The same figures, and play began as long before the event was told as before it was
    sent: later by at most the time from `sending` to now (the clocks read at each end)."""
    figures = (got.done, got.total, got.played_now) == (sent.done, sent.total, sent.played_now)
    late = got.started - sent.started
    return figures and -1e-6 <= late <= time.monotonic() - sending + 1e-6


def test_notes_and_builds_are_told_as_they_were_said() -> None:
    server, queue = _server()
    server.note("alpha: skipped, no bot.toml")
    server.building("alpha", True)
    server.building("alpha", False)
    assert _through_the_wire(server, queue).calls == [
        ("note", "alpha: skipped, no bot.toml"),
        ("building", ("alpha", True)),
        ("building", ("alpha", False)),
    ]


def test_the_start_is_told_with_its_folder_entrants_and_progress() -> None:
    server, queue = _server()
    progress = Progress(3, 12, time.monotonic() - 2.0, 0)
    sending = time.monotonic()
    server.started(Path("/results/night"), ["alpha", "beta"], progress)
    assert (server.folder, server.progress) == (Path("/results/night"), progress)
    ((kind, (folder, entrants, got)),) = _through_the_wire(server, queue).calls
    assert (kind, folder, entrants) == ("started", Path("/results/night"), ["alpha", "beta"])
    assert _same_progress(got, progress, sending)


@given(lines, st.lists(standings, max_size=4), st.integers(0, 1000), st.integers(0, 1000))
def test_each_game_is_told_with_its_line_the_standings_and_progress(
    line: GameLine, table: list[Standing], done: int, played_now: int
) -> None:
    server, queue = _server()
    progress = Progress(done, done + 5, time.monotonic() - 1.0, played_now)
    sending = time.monotonic()
    server.game_finished(line, table, progress)
    assert server.progress == progress
    ((kind, (got_line, got_table, got_progress)),) = _through_the_wire(server, queue).calls
    assert (kind, got_line, got_table) == ("game_finished", line, table)
    assert _same_progress(got_progress, progress, sending)


@given(reports)
def test_the_end_is_the_report_itself(report: RunReport) -> None:
    server, queue = _server()
    server.finished(report)
    event = apb.TournamentEvent.FromString(queue.get_nowait().SerializeToString())
    told = Told()
    assert event.WhichOneof("kind") in LAST
    assert tell(event, told) == report
    assert told.calls == []


def test_an_error_ends_the_stream_with_its_reason() -> None:
    server, queue = _server()
    server.failed("the league store is gone")
    event = apb.TournamentEvent.FromString(queue.get_nowait().SerializeToString())
    assert event.WhichOneof("kind") in LAST
    with pytest.raises(TournamentError, match=r"^the league store is gone$"):
        tell(event, Told())


def test_text_a_protobuf_string_cannot_hold_is_escaped_not_a_broken_tournament() -> None:
    server, queue = _server()
    server.note("cannot read /results/\udcff")
    server.started(Path("/results/\udcfe"), ["alpha"], Progress(0, 1, time.monotonic(), 0))
    told = _through_the_wire(server, queue).calls
    assert told[0] == ("note", "cannot read /results/\\udcff")
    assert told[1][1][0] == Path("/results/\\udcfe")


@pytest.mark.parametrize(
    "sent",
    [
        b"",  # nothing this arena knows
        b'"\x02{}',  # finished_json (field 4) of a server from before the typed events
        bytes([0xFA, 0x01, 0x00]),  # a kind numbered 31, from a newer server
    ],
)
def test_an_event_this_arena_cannot_read_is_said_so(sent: bytes) -> None:
    event = apb.TournamentEvent.FromString(sent)
    with pytest.raises(TournamentError, match="an event this arena does not know"):
        tell(event, Told())
