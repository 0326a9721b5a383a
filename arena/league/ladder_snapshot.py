"""The ladder's settled board kept on disk, so that a server started again rates only the
rounds after it rather than the season.

Rating every ladder game costs about 0.4 ms (48 s at 100,000 games), at the first look after
every start. So the board's settled part (`ladder_settled.Settled`: every version's
standing, each entrant's rating path, the latest games, and where in the store it ends) is
written to `ladder.board` in the results folder, compressed JSON, now and then as it grows
(`ladder_board.SAVE_SEATS`) and when the ladder stops, and read at the first look. It is
taken only if the store still holds what it was made from (the same count of tournaments up
to its last round, that one with the same games): a snapshot from another store, or one a
round was since removed from, is let go and everything rated afresh, as are a damaged one
and one of another format. The snapshot is a cache, never a record: losing it costs one
slow look.

It is the arena's own file in a folder others may write to: written aside (a new file, never
one that is there) and renamed into place, and read with O_NOFOLLOW from a regular file
alone, so that a link put in its place is neither followed nor written through.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
import zlib
from collections import deque
from pathlib import Path
from typing import Any

from arena.league.ladder_ratings import RatingState, Version
from arena.league.ladder_settled import LATEST, LadderGame, Settled
from arena.store import LeagueStore, Mark
from arena.tournament.report.ratings import Standing

SNAPSHOT = "ladder.board"
FORMAT = "perudo-arena/ladder-board/1"
MAX_BYTES = 1 << 30
"""Larger than any season's snapshot (a million games: about 20 MB); a bigger file is not
read into memory."""


def save(folder: Path, settled: Settled) -> None:
    """Write the settled board to `folder`'s snapshot, replacing the last (nothing settled:
    nothing written)."""
    if settled.mark is None:
        return
    state = settled.state
    body = {
        "format": FORMAT,
        "mark": list(settled.mark),
        "count": settled.count,
        "games": settled.games,
        "standings": [_standing(s) for s in state.standings().values()],
        "last": {name: v.number for name, v in state.last().items()},
        "paths": {name: list(path) for name, path in state.paths.items()},
        "latest": [[g.round, g.game_id, list(g.ranking)] for g in settled.latest],
    }
    data = zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 1)
    fd, aside = tempfile.mkstemp(prefix=".ladder-board-", dir=folder)  # O_EXCL: a new file
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(aside, folder / SNAPSHOT)  # a link there is replaced, not written through
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise


def load(folder: Path, store: LeagueStore) -> Settled | None:
    """The settled board of `folder`'s snapshot, if there is one that the store still holds
    as it was; None (rate afresh) otherwise."""
    body = _read(folder / SNAPSHOT)
    if body is None:
        return None
    try:
        settled = _settled(body)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None  # damaged, or written by another format
    assert settled.mark is not None
    if store.tournaments_through(settled.mark) != (settled.count, settled.games):
        return None  # another store's, or a round removed or changed since
    return settled


def _read(path: Path) -> Any:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None  # none yet, or a link in its place
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as source:
            data = source.read(MAX_BYTES + 1)
        return json.loads(zlib.decompress(data))
    except (OSError, zlib.error, ValueError):
        return None
    finally:
        os.close(fd)


def _standing(s: Standing) -> list[Any]:
    return [s.name, s.mu, s.sigma, s.games, s.wins, s.place_sum, s.faults, s.think]


def _settled(body: Any) -> Settled:
    if body["format"] != FORMAT:
        raise ValueError(f"not {FORMAT}")
    started, last_id = body["mark"]
    standings = {}
    for name, mu, sigma, games, wins, place_sum, faults, think in body["standings"]:
        standings[str(name)] = Standing(
            str(name),
            float(mu),
            float(sigma),
            int(games),
            int(wins),
            int(place_sum),
            int(faults),
            [float(t) for t in think],
        )
    last = {
        str(name): Version(str(name), None if number is None else int(number))
        for name, number in body["last"].items()
    }
    if any(v.label not in standings for v in last.values()):
        raise ValueError("a version rated last without a standing")
    paths = {str(name): [float(r) for r in path] for name, path in body["paths"].items()}
    state = RatingState.restored(standings, last, paths)
    latest = deque(
        (
            LadderGame(str(r), str(g), tuple(str(n) for n in ranking))
            for r, g, ranking in body["latest"]
        ),
        maxlen=LATEST,
    )
    return Settled(
        Mark(float(started), str(last_id)), int(body["count"]), int(body["games"]), state, latest
    )
