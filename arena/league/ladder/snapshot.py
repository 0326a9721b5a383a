"""The ladder's settled board kept on disk, so that a server started again rates only the
rounds after it rather than the season.

Rating every ladder game costs about 0.4 ms (48 s at 100,000 games), at the first look after
every start. So the board's settled part (`settled.Settled`: every version's
standing, each entrant's rating path, the latest games, every game's finishing order by
version for the fit, and where in the store it ends) is
written to `ladder.board` in the results folder (`MAGIC` says how), now and then as it grows
(`board.SAVE_SEATS`) and when the ladder stops, and read at the first look. It is
taken only if the store still holds what it was made from (no ladder round up to its last
written since the store's generation it saw, or else the same count of tournaments up to
its last round, that one with the same games): a snapshot from another store, or one a
round was since removed from, is let go and everything rated afresh, as are a damaged one
and one of another format or version. The snapshot is a cache, never a record: losing it costs one
slow look.

It is the arena's own file in a folder others may write to: written aside (a new file, never
one that is there) and renamed into place, and read with O_NOFOLLOW from a regular file
alone, so that a link put in its place is neither followed nor written through.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import sys
import tempfile
import zlib
from array import array
from collections import deque
from collections.abc import MutableSequence
from pathlib import Path
from typing import Any

from arena.league.ladder.finishes import Finishes
from arena.league.ladder.ratings import RatingState, Version
from arena.league.ladder.settled import LATEST, LadderGame, Settled
from arena.records import RecordError
from arena.store import Mark
from arena.tournament.report.median import Median
from arena.tournament.report.ratings import Standing

SNAPSHOT = "ladder.board"
MAGIC = b"perudo-arena/ladder-board/4\n"
"""Its first bytes; then the header's length (4 bytes, big-endian), the header (compressed
JSON: all but the numbers of each game), then every thinking time (each standing's two
halves, `Median.halves`, as they stand) and every path's ratings, 8-byte doubles
(little-endian), in the header's order, then the fit's games (`finishes`): its groups'
names (UTF-8, `group_bytes` of them), then each game's seats, each game's group, where each
group's name ends and every seat's label, by number, 4-byte unsigned (little-endian). The
numbers are most of it and are read as arrays: a million games' (6 million doubles) in
tens of milliseconds, where JSON took seconds; the arrays are kept as read (a copy of
their bytes, no Python number made for each)."""
MAX_BYTES = 1 << 30
"""Larger than any season's snapshot (about 70 bytes a game: 70 MB at a million games); a
bigger file is not read into memory."""


def save(folder: Path, settled: Settled) -> None:
    """Write the settled board to `folder`'s snapshot, replacing the last (nothing settled:
    nothing written)."""
    if settled.mark is None:
        return
    state = settled.state
    standings = list(state.standings().values())
    paths = [(name, state.own_path(name)) for name in state.paths]
    kept = settled.finishes
    header = {
        "mark": list(settled.mark),
        "count": settled.count,
        "games": settled.games,
        "seen": None if settled.seen is None else list(settled.seen),
        "recent": settled.recent,
        "standings": [_standing(s) for s in standings],
        "last": {name: v.number for name, v in state.last().items()},
        "paths": [[name, len(path)] for name, path in paths],
        "latest": [[g.round, g.game_id, list(g.ranking)] for g in settled.latest],
        "labels": kept.labels,
        "fit_games": len(kept),
        "fit_groups": len(kept.group_ends),
        "group_bytes": len(kept.group_names),
    }
    packed = zlib.compress(json.dumps(header, separators=(",", ":")).encode())
    numbers = array("d")
    for part in itertools.chain(
        itertools.chain.from_iterable(s.think.halves() for s in standings), (p for _, p in paths)
    ):
        numbers.extend(part if isinstance(part, array) else array("d", part))
    orders = kept.sizes + kept.group_of + kept.group_ends + kept.seats
    if sys.byteorder != "little":
        numbers.byteswap()
        orders.byteswap()
    fd, aside = tempfile.mkstemp(prefix=".ladder-board-", dir=folder)  # O_EXCL: a new file
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + len(packed).to_bytes(4, "big") + packed)
            numbers.tofile(out)
            out.write(kept.group_names)
            orders.tofile(out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(aside, folder / SNAPSHOT)  # a link there is replaced, not written through
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(aside)
        raise


def load(folder: Path) -> Settled | None:
    """The settled board of `folder`'s snapshot, if there is one (whether the store still
    holds it as it was, `board`'s first look checks, as it does at every look); None (rate
    afresh) otherwise."""
    body = _read(folder / SNAPSHOT)
    if body is None:
        return None
    try:
        settled = _settled(body)
    except (KeyError, TypeError, ValueError, AttributeError, zlib.error):
        return None  # damaged, or written by another format
    return settled


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None  # none yet, or a link in its place
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_BYTES:
            return None
        with os.fdopen(fd, "rb", closefd=False) as source:
            return source.read(MAX_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _standing(s: Standing) -> list[Any]:
    low, high = s.think.halves()
    return [s.name, s.mu, s.sigma, s.games, s.wins, s.place_sum, s.faults, len(low), len(high)]


def _settled(data: bytes) -> Settled:
    if not data.startswith(MAGIC):
        raise RecordError("not a ladder board")
    at = len(MAGIC) + 4
    size = int.from_bytes(data[len(MAGIC) : at], "big")
    body = json.loads(zlib.decompress(data[at : at + size]))
    counts = [n for *_, low, high in body["standings"] for n in (low, high)]
    counts += [count for _, count in body["paths"]]
    if not all(isinstance(count, int) and count >= 0 for count in counts):
        raise RecordError("a count that is not one")
    named = body["group_bytes"]
    if not isinstance(named, int) or named < 0:
        raise RecordError("a count that is not one")
    ends = at + size + 8 * sum(counts)
    if ends + named > len(data):
        raise RecordError("a count past the numbers")
    numbers, orders = array("d"), array("I")
    numbers.frombytes(data[at + size : ends])
    group_names = data[ends : ends + named]
    orders.frombytes(data[ends + named :])  # a length not a multiple of 4: ValueError
    if sys.byteorder != "little":
        numbers.byteswap()
        orders.byteswap()
    taken = 0

    def take(count: Any) -> array[float]:
        """The next `count` numbers, as an array: a copy of their bytes, no Python number
        made for each (6 million at a million games took a third of a second)."""
        nonlocal taken
        if not isinstance(count, int) or count < 0 or taken + count > len(numbers):
            raise RecordError("a count past the numbers")
        taken += count
        return numbers[taken - count : taken]

    started, last_id = body["mark"]
    standings = {}
    for name, mu, sigma, games, wins, place_sum, faults, low, high in body["standings"]:
        standings[str(name)] = Standing(
            str(name),
            float(mu),
            float(sigma),
            int(games),
            int(wins),
            int(place_sum),
            int(faults),
            Median.restored(take(low), take(high)),
        )
    last = {
        str(name): Version(str(name), None if number is None else int(number))
        for name, number in body["last"].items()
    }
    if any(v.label not in standings for v in last.values()):
        raise RecordError("a version rated last without a standing")
    paths: dict[str, MutableSequence[float]] = {
        str(name): take(count) for name, count in body["paths"]
    }
    if taken != len(numbers):
        raise RecordError("numbers left over")
    kept = _finishes(body, group_names, orders)
    state = RatingState.restored(standings, last, paths)
    latest = deque(
        (
            LadderGame(str(r), str(g), tuple(str(n) for n in ranking))
            for r, g, ranking in body["latest"]
        ),
        maxlen=LATEST,
    )
    seen = body["seen"]
    return Settled(
        Mark(float(started), str(last_id)),
        int(body["count"]),
        int(body["games"]),
        state,
        latest,
        kept,
        None if seen is None else (str(seen[0]), int(seen[1])),
        {str(tid): int(games) for tid, games in body["recent"].items()},
    )


def _finishes(body: Any, group_names: bytes, orders: array[int]) -> Finishes:
    """The fit's games the header, the groups' names and the 4-byte numbers hold, each number
    checked against what it counts or names."""
    labels = [str(label) for label in body["labels"]]
    games, groups = body["fit_games"], body["fit_groups"]
    if not all(isinstance(n, int) and n >= 0 for n in (games, groups)):
        raise RecordError("a count that is not one")
    if 2 * games + groups > len(orders):
        raise RecordError("a count of games or groups past the numbers")
    sizes, group_of = orders[:games], orders[games : 2 * games]
    group_ends, seats = orders[2 * games : 2 * games + groups], orders[2 * games + groups :]
    if sum(sizes) != len(seats):
        raise RecordError("seats left over, or too few")
    if max(group_of, default=-1) >= groups or max(seats, default=-1) >= len(labels):
        raise RecordError("a group or a label that is not kept")
    if (group_ends[-1] if groups else 0) != len(group_names) or any(
        later < earlier for earlier, later in itertools.pairwise(group_ends)
    ):
        raise RecordError("the groups' names do not end where they say")
    group_names.decode()  # not UTF-8: UnicodeDecodeError, a ValueError
    return Finishes.restored(labels, group_names, group_ends, sizes, group_of, seats)
