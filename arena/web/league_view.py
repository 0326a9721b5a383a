"""What the league's web pages show, read from the league store and the results folders.

Every file is found from ids the store holds (a tournament's, a game's, the
logged-in entrant's name), never from a path in a request; a tournament id is
used as a folder name only if it is one plain name. A bot's log is in a
folder its bot wrote to, so it is opened without following a link at any
step, refused unless it is a regular file, and read from its end, at most
LOG_TAIL bytes.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.records import GameLine
from arena.store import LeagueStore
from arena.submissions.versions import Versions
from arena.tournament.report.ratings import Ratings, result_of

if TYPE_CHECKING:
    from arena.web.ladder_view import LadderSource

LOG_TAIL = 256 * 1024
"""Bytes of a bot's log shown at most: its end, where a crash is."""
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")
_NOFOLLOW = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True, slots=True)
class League:
    """What the pages read and submit to: the league server's own store and versions."""

    store: LeagueStore
    versions: Versions
    out: Path
    """The results folder its tournaments are written under."""
    ladder: LadderSource | None = None
    """The server's ladder: the live, public and authors' pages show it."""


class LogUnavailableError(ArenaError):
    """The log cannot be shown; the message says why, in words for the page."""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    tournament: str
    game: str
    players: tuple[str, ...]
    place: int
    """The entrant's place in it, 1 for the winner."""
    started: float | None


def games_of(lines: Sequence[tuple[str, GameLine]], name: str) -> list[PlayedGame]:
    """The games `name` played, newest first."""
    played = [
        PlayedGame(tid, line.game, line.players, line.ranking.index(name) + 1, line.started)
        for tid, line in lines
        if name in line.players and name in line.ranking
    ]
    return played[::-1]


def rating_history(lines: Sequence[tuple[str, GameLine]], name: str) -> list[float]:
    """`name`'s conservative TrueSkill rating after each of its games, in the order the
    league rates them (the same order as its leaderboard, so the last is the board's)."""
    ratings = Ratings()
    history: list[float] = []
    for _, line in lines:
        ratings.add(result_of(line))
        if name in line.players:
            history.append(ratings.standings[name].conservative)
    return history


def played_in(lines: Sequence[tuple[str, GameLine]], name: str, tournament: str, game: str) -> bool:
    return any(
        tid == tournament and line.game == game and name in line.players for tid, line in lines
    )


def plain(tournament: str) -> bool:
    """Whether a tournament id can name a folder: one name, no dot-dot, no slash."""
    return _PLAIN.fullmatch(tournament) is not None and ".." not in tournament


def replay_file(out: Path, tournament: str, game: str) -> Path | None:
    if not (plain(tournament) and plain(game)):
        return None
    return out / tournament / "replays" / f"{game}.json"


def read_log(out: Path, tournament: str, name: str) -> str:
    """The end of `name`'s own log in a tournament folder under `out` (logs/<name>.log)."""
    if not (plain(tournament) and plain(name)):
        raise LogUnavailableError("no log is kept under this name")
    fds: list[int] = []
    try:
        fds.append(os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
        for part in (tournament, "logs"):
            fds.append(os.open(part, _NOFOLLOW | os.O_DIRECTORY, dir_fd=fds[-1]))
        fds.append(os.open(f"{name}.log", _NOFOLLOW, dir_fd=fds[-1]))
        info = os.fstat(fds[-1])
        if not stat.S_ISREG(info.st_mode):
            raise LogUnavailableError("the log is not a regular file, so it is not shown")
        start = max(0, info.st_size - LOG_TAIL)
        data = os.pread(fds[-1], LOG_TAIL, start)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LogUnavailableError("the log is a link, which is never followed") from None
        if error.errno == errno.ENOENT:
            raise LogUnavailableError("this bot left no log in this tournament") from None
        raise LogUnavailableError(f"the log cannot be read: {error.strerror or error}") from None
    finally:
        for fd in reversed(fds):
            os.close(fd)
    text = data.decode("utf-8", errors="replace")
    return text if start == 0 else f"[the first {start} bytes left out]\n" + text
