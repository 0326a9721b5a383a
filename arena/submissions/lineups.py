"""What a night plays: each entrant's version, in a line-up folder the tournament reads as bots.

    lineups/<id>/
        <entrant>  ->  versions/<sha256>/bot     one link per entrant, to its built version
        versions.json                            each one's pin (`arena.tournament.versions`)

A line-up is named by the hash of its `versions.json`, so the same versions
make the same folder, and it is never changed once made: a tournament that
resumes finds the versions it began with, and a final can be played on an
earlier night's line-up (`arena admin start --bots results/submissions/lineups/<id>`).
The links are the organiser's own, in a folder no bot can write; each leads to
a tree the arena built and checked, which the tournament hashes afresh as it
hashes any bot's folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.referee.service.referee_server import Referee
from arena.store import LeagueStore
from arena.store.submissions import SubmissionRow
from arena.submissions.folder import SubmissionsFolder
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.versions import PINS_FILE, Pin, read_pins


@dataclass(frozen=True, slots=True)
class Lineup:
    folder: Path
    pins: dict[str, Pin]
    notes: tuple[str, ...] = ()
    """Entrants whose version cannot play, and why."""


def compose(
    store: LeagueStore, files: SubmissionsFolder, only: Sequence[str] = ()
) -> Lineup | None:
    """The line-up of every active entrant's playing version (or of those in `only`); None
    when no entrant has one."""
    return lineup_of(files, store.playing_versions(list(only) or None))


def lineup_of(files: SubmissionsFolder, rows: Mapping[str, SubmissionRow]) -> Lineup | None:
    """The line-up of these accepted versions, by entrant (a request's chosen ones); None
    when none of them can play."""
    pins: dict[str, Pin] = {}
    notes: list[str] = []
    for name, row in sorted(rows.items()):
        assert row.version is not None  # a playable row is an accepted one
        if not (files.source(row.sha256).is_dir() and files.bot(row.sha256).is_dir()):
            notes.append(
                f"{name}: version {row.version} cannot play, its files are missing from "
                f"{files.version(row.sha256)}"
            )
            continue
        pins[name] = Pin(row.version, row.sha256, str(files.source(row.sha256).resolve()))
    if not pins:
        return None
    text = json.dumps({n: p.to_json() for n, p in pins.items()}, indent=1, sort_keys=True) + "\n"
    target = files.lineups / hashlib.sha256(text.encode()).hexdigest()[:16]
    if not target.is_dir():
        _make(target, files, pins, text)
    return Lineup(target, pins, tuple(notes))


def lineup_for(
    store: LeagueStore,
    files: SubmissionsFolder,
    resume: Path | None,
    bots_dir: str,
    only: Sequence[str],
) -> Lineup | None:
    """The line-up a tournament on the league server plays, if it plays submitted versions:
    the one a resumed tournament began with, the one `bots_dir` is (an earlier night's, for
    a final), or, without `bots_dir`, every entrant's playing version now."""
    if resume is not None:
        try:
            begun = TournamentFolder(resume).info().plan.bots_dir
        except (OSError, ValueError):
            return None  # the resume itself says what is wrong with the folder
        return pinned(Path(begun)) if begun is not None else None
    if bots_dir:
        return pinned(Path(bots_dir))
    return compose(store, files, only)


def pinned(folder: Path) -> Lineup | None:
    """A line-up folder as it was made; None for any other bots folder."""
    pins = read_pins(folder)
    return Lineup(folder, pins) if pins else None


async def make_way(lineup: Lineup, referee: Referee, note: Callable[[str], None]) -> None:
    """Before the night: say which versions cannot play, and close the remote sessions of
    the entrants whose submitted version plays instead (its token is the night's now)."""
    for text in lineup.notes:
        note(text)
    for session in referee.lobby.all_sessions():
        pin = lineup.pins.get(session.name)
        if pin is not None:
            why = f"version {pin.number} of {session.name}, as submitted, plays this tournament"
            await referee.goodbye(session, why)


def _make(target: Path, files: SubmissionsFolder, pins: dict[str, Pin], text: str) -> None:
    """Lay the line-up out in `tmp/`, then rename it into place: whole, or not there."""
    files.make()
    staging = Path(tempfile.mkdtemp(prefix="lineup-", dir=files.tmp))
    try:
        for name, pin in pins.items():
            os.symlink(files.bot(pin.sha256).resolve(), staging / name)
        (staging / PINS_FILE).write_text(text)
        staging.chmod(0o755)
        try:
            os.rename(staging, target)
        except OSError:
            if not target.is_dir():  # made meanwhile by another start: the same, so kept
                raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
