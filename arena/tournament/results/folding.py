"""A finished round folded into its day's record, then its folder removed: once, whatever
stops it (`arena.tournament.results.days` says what a day keeps).

A round still plays in a folder of its own, as any tournament does, so that a
kill mid-round resumes as before. Only a finished one, its games in the league
store, is folded, in this order, each step synced before the next:

1. `folding.json` is written in the round's folder: the day chosen and the
   length of that day's `rounds.jsonl`, where the round's line will begin.
2. The round's replays (together) and each bot log are appended, compressed, to the
   day's files.
3. The round's line is appended to `rounds.jsonl`: the round is folded.
4. A line is appended to `rounds.idx`, saying where its line is.
5. The folder is renamed `NAME.folded`, then removed (a name no reader takes for a round).

Folds are one at a time (a lock beside the days), so a round's line can only
begin where step 1 said. A fold run again after a kill reads that place: the
round's own line there means it was folded (steps 4 and 5 are done again, the
index line only if missing), anything else that it was not, and it is folded
anew. So no kill loses a round (its folder goes only after its line is
synced) or doubles one (its line is looked for before it is written).
"""

from __future__ import annotations

import contextlib
import datetime
import hashlib
import json
import os
import shutil
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path

from arena.bots.run.gamelogs import INDEX_SUFFIX, parse_index
from arena.records import GameLine
from arena.tournament.info import RunStatus
from arena.tournament.results.days import (
    INDEX,
    LOGS,
    REPLAYS,
    ROUNDS,
    FoldedLog,
    FoldedRound,
    Stored,
    days_folder,
    locked,
    pack,
    primer_of,
    read_line,
)
from arena.tournament.results.folder import ResultsError, TournamentFolder, write_atomic
from arena.tournament.results.pruning import pruned_games

FOLDING = "folding.json"
GONE = ".folded"
"""The suffix of a folded round's folder on its way out."""
WHOLE_CHUNK = 1 << 16
"""Bytes read at a time from a record's end, back to its last whole line."""


def fold(root: Path) -> FoldedRound:
    """Fold the finished tournament folder `root` into its day under `root`'s parent, and
    remove it; the round as folded. A ResultsError if it has not finished."""
    folder = TournamentFolder(root)
    results = root.parent
    with locked(results):
        again = _already(root)
        folded, at = _fold(folder) if again is None else again
        _index(results, folded, at, again is not None)
    _remove(root)
    return folded


def sweep(results: Path) -> None:
    """Remove what folded rounds left on their way out (a kill during step 5)."""
    if results.is_dir():
        for path in results.glob(f"*{GONE}"):
            shutil.rmtree(path, ignore_errors=True)


def _already(root: Path) -> tuple[FoldedRound, int] | None:
    """The round as folded and its line's place, if a fold before this one got as far as
    its line."""
    try:
        mark = json.loads((root / FOLDING).read_text())
        day, at = days_folder(root.parent) / str(mark["day"]), int(mark["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    folded = read_line(day, at)
    return (folded, at) if folded is not None and folded.id == root.name else None


def _fold(folder: TournamentFolder) -> tuple[FoldedRound, int]:
    root = folder.root
    try:
        info = folder.info()
    except (OSError, ValueError) as error:
        raise ResultsError(f"{root} cannot be folded: its tournament.json ({error})") from None
    if info.status is not RunStatus.FINISHED:
        raise ResultsError(f"{root} cannot be folded: it has not finished")
    finished = folder.finished(folder.schedule(info))
    starts = [line.started for line in finished.lines if line.started is not None]
    when = min(starts) if starts else info.created
    name = datetime.datetime.fromtimestamp(when, datetime.UTC).date().isoformat()
    day = days_folder(root.parent) / name
    day.mkdir(parents=True, exist_ok=True)
    at = _whole(day / ROUNDS)
    write_atomic(root / FOLDING, json.dumps({"day": name, "at": at}) + "\n")
    replays, kept = _replays(folder, finished.lines)
    primer = primer_of(day) if at else None  # the day's first round: each later one's dictionary
    zdict = primer.replays if primer is not None else b""
    member = None
    if kept:
        with _appending(day / REPLAYS) as out:
            member = _append(out, kept, zdict)
    with _appending(day / LOGS) as out:
        logs = _logs(folder, out)
    folded = FoldedRound(
        day,
        root.name,
        info.to_json(),
        finished.lines,
        finished.problems,
        replays,
        member,
        logs,
        primed=bool(zdict) and member is not None,
    )
    data = (json.dumps(folded.to_json(primer), separators=(",", ":")) + "\n").encode()
    fd = os.open(day / ROUNDS, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size != at:
            raise ResultsError(f"{day / ROUNDS} was written by another hand while folding")
        _write_all(fd, data, at)
    finally:
        os.close(fd)
    return folded, at


def _replays(
    folder: TournamentFolder, lines: Sequence[GameLine]
) -> tuple[dict[str, Stored], bytes]:
    """Each game's replay, where it lies in the round's bytes and its hash; those bytes."""
    pruned = pruned_games(folder.root)
    replays: dict[str, Stored] = {}
    kept = bytearray()
    for line in lines:
        path = folder.replays / f"{line.game}.json"
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            sha = hashlib.sha256(data).hexdigest()
            replays[line.game] = Stored(len(kept), len(data), sha)
            kept += data
        elif line.game in pruned:  # let go before: its hash is kept, its bytes are not
            replays[line.game] = Stored(-1, 0, pruned[line.game])
    return replays, bytes(kept)


def _logs(folder: TournamentFolder, out: int) -> dict[str, FoldedLog]:
    """Each log of the round appended to the day's, with its games' parts."""
    logs: dict[str, FoldedLog] = {}
    for path in sorted(folder.logs.glob("*")) if folder.logs.is_dir() else []:
        if path.name.endswith(INDEX_SUFFIX):
            continue  # a bot's index is folded with its log
        data = _regular(path)
        if data is None:
            continue
        index = _regular(path.with_name(path.name + INDEX_SUFFIX))
        found = parse_index(index) if index is not None else {}
        parts = {game: (part.start, part.end) for game, part in found.items()}
        logs[path.name] = FoldedLog(_append(out, data), parts)
    return logs


def _regular(path: Path) -> bytes | None:
    """A log's bytes, or None if it is not a regular file. A bot may have written in its
    logs folder, so nothing there is followed as a link or waited on as a pipe."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as log:
            return log.read()
    finally:
        os.close(fd)


def _index(results: Path, folded: FoldedRound, at: int, again: bool) -> None:
    """The index line of a folded round; a fold done again adds it only if missing."""
    path = days_folder(results) / INDEX
    line = f"{folded.id} {folded.day.name} {at}\n".encode()
    if again:
        with contextlib.suppress(FileNotFoundError):
            if line in path.read_bytes():
                return
    _whole(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        _write_all(fd, line, os.fstat(fd).st_size)
    finally:
        os.close(fd)


def _remove(root: Path) -> None:
    gone = root.with_name(root.name + GONE)
    shutil.rmtree(gone, ignore_errors=True)  # an earlier fold's, stopped on its way out
    os.rename(root, gone)
    shutil.rmtree(gone, ignore_errors=True)


def _whole(path: Path) -> int:
    """Cut a torn last line a kill left; the file's length then (0 for none). Only its end
    is read: a fold reads no more of its day's record and index however long they grow
    (read whole, they made each fold cost its day's games: 40 MB a round by a day of
    140,000 games)."""
    try:
        out = path.open("r+b")
    except FileNotFoundError:
        return 0
    with out:
        end = whole = out.seek(0, os.SEEK_END)
        if not end:
            return 0
        while whole > 0:
            start = max(0, whole - WHOLE_CHUNK)
            out.seek(start)
            chunk = out.read(whole - start)
            if chunk.endswith(b"\n") and whole == end:
                return end  # the usual case: its last line is whole
            if (newline := chunk.rfind(b"\n")) >= 0:
                whole = start + newline + 1
                break
            whole = start
        out.truncate(whole)
        os.fsync(out.fileno())
        return whole


def _write_all(fd: int, data: bytes, start: int) -> None:
    """Write and sync `data`; half of it is taken back if the disk refuses the rest."""
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])
        os.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        raise


@contextlib.contextmanager
def _appending(path: Path) -> Iterator[int]:
    """An fd appending to `path`, synced when the block ends."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        yield fd
        os.fsync(fd)
    finally:
        os.close(fd)


def _append(fd: int, data: bytes, zdict: bytes = b"") -> Stored:
    packed = pack(data, zdict)
    at = os.fstat(fd).st_size
    written = 0
    while written < len(packed):
        written += os.write(fd, packed[written:])
    return Stored(at, len(packed), hashlib.sha256(data).hexdigest())
