"""What the league's web pages show, read from the league store and the results folders.

Every file is found from ids the store holds (a tournament's, a game's, the
logged-in entrant's name), never from a path in a request; a tournament id is
used as a folder name only if it is one plain name. A bot's log is in a
folder its bot wrote to, so it is opened without following a link at any
step, refused unless it is a regular file, and read from its end, at most
LOG_TAIL bytes. A game's part of it is found in the log's index
(`arena.bots.run.gamelogs`), opened the same way and read as checked numbers;
where the index has no sound part for the game (a tournament played before
there was one, a crash that cut it), the whole log is shown and the page
says why.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from arena.bots.run.gamelogs import INDEX_SUFFIX, GameSlice, find_part
from arena.errors import ArenaError
from arena.records import GameLine, RecordError, Replay
from arena.store import LeagueStore
from arena.submissions.requests import Desk
from arena.submissions.versions import Versions
from arena.tournament.report.ratings import Ratings, result_of
from arena.tournament.results.days import find_round
from arena.tournament.results.folder import ResultsError
from arena.tournament.results.replays import ReplayLookup
from arena.web.ladder_source import LadderSource

LOG_TAIL = 256 * 1024
"""Bytes of a bot's log shown at most: its end, where a crash is."""
INDEX_TAIL = 4 * 1024 * 1024
"""Bytes of a log's index read at most: its end, the latest games (some 60 bytes a game)."""
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
    requests: Desk | None = None
    """Where authors' requests for test games are taken (`arena.web.portal.request_pages`)."""


class ReplayUnavailableError(ArenaError):
    """No replay of the game can be shown; the message says why, in words for the page."""


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


def league_replay(out: Path, tournament: str, game: str) -> Replay:
    """A league game's replay: its tournament folder's file, or, for a round folded into
    its day's record, rendered from there; a ReplayUnavailableError when there is none."""
    if not (plain(tournament) and plain(game)):
        raise ReplayUnavailableError("no replay is kept under this name")
    text = ReplayLookup(out).text(tournament, game)
    if text is None:
        raise ReplayUnavailableError(
            f"the replay of {tournament}/{game} is not in the results folder"
        )
    try:
        return Replay.from_json(json.loads(text))
    except (ValueError, RecordError) as error:
        raise ReplayUnavailableError(
            f"the replay of {tournament}/{game} is not a replay: {error}"
        ) from None


def took_part(lines: Sequence[tuple[str, GameLine]], name: str, tournament: str) -> bool:
    return any(tid == tournament and name in line.players for tid, line in lines)


@dataclass(frozen=True, slots=True)
class _File:
    name: str
    """How the page names it."""
    missing: str
    """What the page says when it is not there."""


_LOG = _File("the log", "this bot left no log in this tournament")
_INDEX = _File(
    "the log's index of games",
    "no index of its games was kept (the tournament was played before there was one)",
)


@dataclass(frozen=True, slots=True)
class GameLog:
    """What the page shows for one game: the game's part of the log, or the whole log."""

    text: str
    instead: str | None = None
    """Why the whole log is shown instead of the game's part, if it is."""


def read_log(out: Path, tournament: str, name: str) -> str:
    """The end of `name`'s own log in a tournament folder under `out` (logs/<name>.log), or
    in its round's day's record once folded."""
    folded = _folded_log(out, tournament, name)
    if folded is not None:
        data, _ = folded
        return _tail_of(data, 0, len(data), "")
    with _logs_folder(out, tournament, name) as logs, _opened(logs, f"{name}.log", _LOG) as fd:
        return _tail(fd, 0, os.fstat(fd).st_size, "")


def read_game_log(out: Path, tournament: str, name: str, game: str) -> GameLog:
    """The part of `name`'s log that `game` holds; the whole log, saying why, if the log's
    index has no sound part for it."""
    folded = _folded_log(out, tournament, name)
    if folded is not None:
        data, parts = folded
        if game not in parts:
            why = "its index has no part for this game (the arena may have stopped first)"
            return GameLog(_tail_of(data, 0, len(data), ""), why)
        start, end = parts[game]
        return GameLog(_tail_of(data, start, min(end, len(data)), " of this game's part"))
    with _logs_folder(out, tournament, name) as logs, _opened(logs, f"{name}.log", _LOG) as fd:
        size = os.fstat(fd).st_size
        try:
            part = _part(logs, name, game)
        except LogUnavailableError as error:
            return GameLog(_tail(fd, 0, size, ""), str(error))
        if part is None:
            why = "its index has no part for this game (the arena may have stopped first)"
            return GameLog(_tail(fd, 0, size, ""), why)
        if part.start > size:
            return GameLog(_tail(fd, 0, size, ""), "the log ends before this game's part begins")
        text = _tail(fd, part.start, min(part.end, size), " of this game's part")
        if part.end > size:
            text += "\n[the log ends here, before this game's part did]\n"
        return GameLog(text)


def _folded_log(
    out: Path, tournament: str, name: str
) -> tuple[bytes, Mapping[str, tuple[int, int]]] | None:
    """`name`'s log of a round folded into its day's record, and each game's part; None
    when the tournament still has its folder (or is no folded round). A LogUnavailableError
    when the round is folded and the log cannot be given."""
    if not (plain(tournament) and plain(name)) or (out / tournament).exists():
        return None
    folded = find_round(out, tournament)
    if folded is None:
        return None
    log = folded.logs.get(f"{name}.log")
    if log is None:
        raise LogUnavailableError(_LOG.missing)
    if folded.pruned:
        raise LogUnavailableError("its logs were let go (`arena league prune`), its results kept")
    try:
        data = folded.log_bytes(f"{name}.log")
    except ResultsError as error:
        raise LogUnavailableError(f"the log cannot be read: {error}") from None
    return (b"" if data is None else data), log.parts


def _tail_of(data: bytes, start: int, end: int, what: str) -> str:
    """`_tail` of bytes in hand."""
    begin = max(start, end - LOG_TAIL)
    text = data[begin:end].decode("utf-8", errors="replace")
    left = begin - start
    return text if left == 0 else f"[the first {left} bytes{what} left out]\n" + text


def _part(logs: int, name: str, game: str) -> GameSlice | None:
    """`game`'s part in the index of `name`'s log, if it has one; a LogUnavailableError
    saying why the index cannot be read."""
    with _opened(logs, f"{name}.log{INDEX_SUFFIX}", _INDEX) as fd:
        size = os.fstat(fd).st_size
        start = max(0, size - INDEX_TAIL)
        with _said(_INDEX):
            data = os.pread(fd, INDEX_TAIL, start)
    if start:  # the first line read may be the end of one
        data = data.partition(b"\n")[2]
    return find_part(data, game)


@contextmanager
def _logs_folder(out: Path, tournament: str, name: str) -> Iterator[int]:
    """The descriptor of a tournament's logs folder, reached without following a link."""
    if not (plain(tournament) and plain(name)):
        raise LogUnavailableError("no log is kept under this name")
    fds: list[int] = []
    try:
        with _said(_LOG):
            fds.append(os.open(out, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC))
            for part in (tournament, "logs"):
                fds.append(os.open(part, _NOFOLLOW | os.O_DIRECTORY, dir_fd=fds[-1]))
        yield fds[-1]
    finally:
        for fd in reversed(fds):
            os.close(fd)


@contextmanager
def _opened(folder: int, filename: str, what: _File) -> Iterator[int]:
    """A regular file in `folder`, opened without following a link or waiting on a pipe."""
    with _said(what):
        fd = os.open(filename, _NOFOLLOW, dir_fd=folder)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LogUnavailableError(f"{what.name} is not a regular file, so it is not read")
        yield fd
    finally:
        os.close(fd)


@contextmanager
def _said(what: _File) -> Iterator[None]:
    """An OSError reaching or reading `what`, said as a LogUnavailableError."""
    try:
        yield
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise LogUnavailableError(f"{what.name} is a link, which is never followed") from None
        if error.errno == errno.ENOENT:
            raise LogUnavailableError(what.missing) from None
        why = error.strerror or error
        raise LogUnavailableError(f"{what.name} cannot be read: {why}") from None


def _tail(fd: int, start: int, end: int, what: str) -> str:
    """The bytes of the file from `start` to `end` as text, at most their last LOG_TAIL,
    saying how many were left out (of `what`)."""
    begin = max(start, end - LOG_TAIL)
    with _said(_LOG):
        data = os.pread(fd, end - begin, begin)
    text = data.decode("utf-8", errors="replace")
    left = begin - start
    return text if left == 0 else f"[the first {left} bytes{what} left out]\n" + text
