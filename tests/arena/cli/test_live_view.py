"""The organiser's screen shows whatever a bot wrote as text: markup in it is never obeyed."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from tournament_harness import Quiet

from arena.cli.live import LiveView, print_report, report_lines
from arena.cli.main import main
from arena.cli.standings import leaderboard_table
from arena.league.admin_stream import EventObserver, tell
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.protocol.messages import admin as apb
from arena.records import GameLine
from arena.tournament.info import RunStatus
from arena.tournament.report.decisions import BotTimes, SlowDecision, faults_by_kind
from arena.tournament.report.ratings import rate_all, result_of
from arena.tournament.report.standings import board
from arena.tournament.report.summary import RunReport, Summary
from arena.tournament.tournament import Progress

SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"
HOSTILE = "[/bold] [red]not red[/red] [link=x]"


def test_notes_faults_and_names_written_by_bots_are_printed_as_they_are() -> None:
    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=False)
    with LiveView(console) as view:
        view.note(f"rogue: exited with code 1 before connecting: {HOSTILE}")
        fault = Fault(FaultKind.MALFORMED_MESSAGE, HOSTILE)
        line = GameLine(
            game="g1",
            index=0,
            players=(HOSTILE, "steady"),
            ranking=(HOSTILE, "steady"),
            faults=(FaultRecord("g1", HOSTILE, 0, 1, fault),),
            think_ms={},
        )
        table = rate_all([result_of(line)], [HOSTILE, "steady"]).table()
        view.game_finished(line, table, Progress(1, 1, 0.0, 1))
    console.print(leaderboard_table(table))
    text = out.getvalue()
    assert f"before connecting: {HOSTILE}" in text
    assert f"fault g1: {HOSTILE} malformed_message: {HOSTILE}" in text
    assert "[/bold]" in text.split("Leaderboard")[1]


def test_a_bot_whose_last_log_line_is_markup_does_not_crash_the_arena(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`arena run` through its main() here: a markup error would end it with a traceback."""
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "shouty.sh").write_text("#!/bin/sh\necho 'starting'\necho '[/bold]'\nexit 1\n")
    shutil.copy(SAMPLES / "random_bot.py", bots / "random_bot.py")  # one bot that connects
    code = main(
        [
            *("run", "--bots", str(bots), "--out", str(tmp_path / "results")),
            *("--connect-timeout", "30"),
        ]
    )
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    assert "shouty: exited with code 1 (an error" in out, out
    assert "before connecting: [/bold]" in out, out
    assert code == 1  # fewer than two bots can play
    assert "fewer than two bots can play (random" in err


ESCAPES = "\x1b[2J\x1b[H\x1b[1;32mall good\x1b[0m \x1b[5A\x1b[2K \u202edeppots\u202c \x9b2J"
"""A log line that clears the screen, writes a fake "all good", moves up and erases, turns
itself around (a bidi override) and clears the screen again with the 8-bit CSI."""


def test_on_a_terminal_a_bots_escape_sequences_are_shown_not_obeyed(tmp_path: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, width=400, force_terminal=True, color_system="standard")
    with LiveView(console) as view:
        view.started(tmp_path, ["rogue", "steady"], Progress(0, 1, 0.0, 0))
        view.note(f"rogue: exited with code 1 before connecting: {ESCAPES}")
        fault = Fault(FaultKind.MALFORMED_MESSAGE, f"bad (the bot says: {ESCAPES})")
        line = GameLine(
            game="g1",
            index=0,
            players=("rogue", "steady"),
            ranking=("steady", "rogue"),
            faults=(FaultRecord("g1", "rogue", 0, 1, fault),),
            think_ms={},
        )
        table = rate_all([result_of(line)], ["rogue", "steady"]).table()
        view.game_finished(line, table, Progress(1, 1, 0.0, 1))
    for line in report_lines([("rogue", f"its last words: {ESCAPES}")], {}, []):
        console.print(line, highlight=False, markup=False)
    text = out.getvalue()
    assert "\x1b[" in text  # the screen's own colours and cursor: this is a terminal
    for obeyed in ("\x1b[2J", "\x1b[H", "\x1b[5A", "\u202e", "\u202c", "\x9b"):
        assert obeyed not in text, repr(obeyed)
    shown = (
        "\\x1b[2J\\x1b[H\\x1b[1;32mall good\\x1b[0m \\x1b[5A\\x1b[2K \\u202edeppots\\u202c \\x9b2J"
    )
    assert text.count(f"  rogue: its last words: {shown}") == 1  # the report
    assert text.count(f"before connecting: {shown}") == 1  # the note
    assert text.count(f"(the bot says: {shown}") >= 1  # the recent faults, in the live frame


def _night(
    names: tuple[str, ...] = ("alpha", "beta", f"rogue {ESCAPES}", "delta"),
    folder: Path = Path("/results/night"),
) -> Summary:
    """A night of 24 games among four bots, one named with escapes, some games with faults."""
    lines = []
    for i in range(24):
        players = (names[i % 4], names[(i + 1) % 4], names[(i + 2) % 4])
        faults = ()
        if i % 5 == 0:
            fault = Fault(FaultKind.TIMEOUT, f"late {ESCAPES}")
            faults = (FaultRecord(f"g{i}", players[2], 2, 1, fault),)
        lines.append(
            GameLine(
                game=f"g{i}",
                index=i,
                players=players,
                ranking=players if i % 3 else (players[1], players[0], players[2]),
                faults=faults,
                think_ms={p: 1.0 + 0.37 * i + len(p) for p in players},
            )
        )
    final = board([("night", line) for line in lines], names, seed=1)
    return Summary(
        folder,
        RunStatus.INTERRUPTED,
        final.table,
        24,
        30,
        None,
        faults=faults_by_kind(lines),
        slowest=(SlowDecision(812.25, names[0], "g3", 2, "bid 3 4"),),
        times=tuple(
            BotTimes(name, 40, 3.1 + i, 700.2 + i, 812.25 + i, 2, 812.25, 900.0)
            for i, name in enumerate(names)
        ),
        skipped=(("ghost", f"no bot.toml {ESCAPES}"),),
        notes=("the machine was busy",),
        board=final,
        outcome="The budget was spent before the ranking was known.",
    )


def _printed(report: RunReport) -> str:
    out = io.StringIO()
    print_report(Console(file=out, width=100, force_terminal=False), report)
    return out.getvalue()


def test_arena_run_and_arena_admin_start_print_the_same_report_at_the_end() -> None:
    summary = _night()
    here = summary.report()  # what `arena run` has in hand
    server = EventObserver()
    queue: asyncio.Queue[apb.TournamentEvent] = asyncio.Queue()
    server.listeners.add(queue)
    server.finished(here)
    sent = queue.get_nowait().SerializeToString()
    there = tell(apb.TournamentEvent.FromString(sent), Quiet())  # what `arena admin` gets
    assert there is not None
    text = _printed(here)
    assert _printed(there) == text
    # Every figure as the run had it: the median decision times unrounded before the table
    # rounds them (a leaderboard row's rounding to 3 places, then 2, moves some by 0.01).
    for standing in summary.table:
        assert f" {standing.median_think_ms:.2f} " in text
    assert "P1" in text and "Not yet separated at 95%" in text
    assert "The budget was spent" in text and "the machine was busy" in text
    for obeyed in ("\x1b[2J", "\u202e", "\x9b"):
        assert obeyed not in text  # the separation line names the rogue too


def test_only_a_resumed_run_says_how_many_games_it_had_played(tmp_path: Path) -> None:
    said = {}
    for done in (0, 12):
        out = io.StringIO()
        with LiveView(Console(file=out, width=200, force_terminal=False)) as view:
            view.started(tmp_path, ["bold", "steady"], Progress(done, 40, 0.0, 0))
        said[done] = out.getvalue()
    assert "already played" not in said[0]  # a fresh run has played nothing yet
    assert "12/40 games already played" in said[12]


LONG_NAMES = (
    "a-bot-with-a-rather-long-name-v2",
    "montecarlo_bluffer_2026",
    "beta",
    "tit-for-tat-liar.cpp",
)
FOLDER = Path("/home/organiser/perudo-league/results/20261201-214503-first-night")


@pytest.mark.parametrize("width", [80, 120])
@pytest.mark.parametrize("finished", [False, True])
def test_the_report_breaks_no_word_path_name_or_command(width: int, finished: bool) -> None:
    night = _night(LONG_NAMES, FOLDER)
    report = night.report()
    if finished:
        report = dataclasses.replace(report, status=RunStatus.FINISHED, seed_hex="ab" * 32)
    resume = f"arena run --resume {FOLDER} --cluster 127.0.0.1:50070"
    out = io.StringIO()
    print_report(Console(file=out, width=width, force_terminal=False), report, resume)
    lines = out.getvalue().splitlines()
    commands = [f"arena leaderboard --cross --tournament {FOLDER.name}"]
    commands.append(f"arena verify {FOLDER}" if finished else resume)
    alone = [line.strip() for line in lines]
    for command in commands:
        assert command in alone, command  # on a line of its own: it copies and pastes
    # Every line fits but a command longer than the screen: the terminal folds that one
    # softly, and a copy of it is still one line.
    assert all(len(line.rstrip()) <= width for line in lines if line.strip() not in commands)
    tokens = [*LONG_NAMES, str(FOLDER), FOLDER.name, *commands, "(check"]
    for token in tokens:
        said = sum(line.count(token) for line in lines)
        assert said == out.getvalue().replace("\n", " ").count(token), token
        assert said >= 1 or token == "(check", token  # whole, never split over two lines
    text = out.getvalue()
    header = next(line for line in lines if " bot " in line)
    if width >= 120:  # the board uses the width: the outliers beside each bot's row
        assert "p99" in header and "slowest" in header
        assert "Decision times" not in text
        for t in night.times:
            row = next(line for line in lines if f" {t.bot} " in line)
            assert f"{t.p99_ms:.1f}" in row and f"{t.slowest_ms:.1f}" in row
    else:  # at 80 columns they are told under it
        assert "p99" not in header and "Decision times" in text
