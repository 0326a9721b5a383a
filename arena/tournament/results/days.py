"""Finished rounds kept by the day: a few files a day in place of a folder per round.

A ladder plays a round of three games or so every few seconds, all day. Kept
as tournament folders (`arena.tournament.results.folder`) that is 5.4 files
and 15 KB a game, millions of files a week. So a round that has finished, its
games in the league store, is folded into its day's record
(`arena.tournament.results.folding`), and its folder removed:

    results/days/
        rounds.idx              one line a folded round: "ROUND DAY OFFSET", the round's
                                line in that day's rounds.jsonl (rebuilt from them if lost)
        YYYY-MM-DD/
            rounds.jsonl        one line a round: its name, and compressed (zlib, base64)
                                its tournament.json (the seed revealed), its games' lines,
                                where its replays and each bot's log lie
            replays.z           a zlib stream a round: its replay files' bytes, one after
                                another, each kept once
            logs.z              each bot's log of each round, a zlib stream
            pruned              written when the day's replays and logs were let go

A round's replays are compressed together, and its line too, since its games
repeat their players and rules and its tournament.json the last round's: 1.4 KB
a game of line and 1.1 KB of replay, each compressed alone, become 0.7 and 0.8.
A replay is kept with the SHA-256 of its bytes as its folder held them, so the
replay read back is the one played, byte for byte, and `arena verify` checks
its deals from the seed as before; a pruned day keeps the hashes. The day's
`rounds.jsonl` is the commit point of a fold: a round is folded once its line
is there, whole. What was appended to the other files before a crash is never
named by any line, and costs only its bytes.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import fcntl
import hashlib
import json
import os
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.records import GameLine, Json, RecordError
from arena.tournament.info import TournamentInfo
from arena.tournament.results.folder import (
    FinishedGames,
    ResultsError,
    schedule_of,
    write_atomic,
)
from arena.tournament.schedule.round_robin import ScheduledGame

DAYS = "days"
ROUNDS = "rounds.jsonl"
REPLAYS = "replays.z"
LOGS = "logs.z"
INDEX = "rounds.idx"
PRUNED = "pruned"
LOCK = ".lock"


def days_folder(results: Path) -> Path:
    return results / DAYS


@contextlib.contextmanager
def locked(results: Path) -> Iterator[None]:
    """One fold or prune of the days at a time, across processes."""
    root = days_folder(results)
    root.mkdir(parents=True, exist_ok=True)
    fd = os.open(root / LOCK, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class Stored:
    """Where a member lies in a day's file: its offset and compressed size, and the SHA-256
    of what it holds (for a replay: its file's bytes)."""

    at: int
    size: int
    sha256: str = ""

    def to_json(self) -> list[int | str]:
        return [self.at, self.size, self.sha256] if self.sha256 else [self.at, self.size]

    @classmethod
    def from_json(cls, data: Any) -> Stored:
        return cls(int(data[0]), int(data[1]), str(data[2]) if len(data) > 2 else "")


@dataclass(frozen=True, slots=True)
class FoldedLog:
    """A bot's log of one round, and each game's part of it (start, end in its bytes)."""

    stored: Stored
    parts: Mapping[str, tuple[int, int]] = field(default_factory=dict)

    def to_json(self) -> Json:
        return {"at": self.stored.to_json(), "parts": {g: list(p) for g, p in self.parts.items()}}

    @classmethod
    def from_json(cls, data: Any) -> FoldedLog:
        parts = {str(g): (int(p[0]), int(p[1])) for g, p in data.get("parts", {}).items()}
        return cls(Stored.from_json(data["at"]), parts)


@dataclass(frozen=True, slots=True)
class FoldedRound:
    """A finished round as its day keeps it: read as a tournament folder is (`info`,
    `schedule`, `finished`), its replays and logs from the day's files."""

    day: Path
    id: str
    record: Json
    """Its tournament.json as it finished."""
    lines: tuple[GameLine, ...]
    """Its finished games, each once, as its folder's journal gave them."""
    problems: tuple[str, ...]
    """The lines its folder's journal left out, as they were said then."""
    replays: Mapping[str, Stored]
    """Each game's replay: where it begins in the round's member of replays.z, its length and
    hash (a replay pruned before the fold: its hash alone, at -1)."""
    member: Stored | None
    """Where the round's replays lie in replays.z (None: it had none to keep)."""
    logs: Mapping[str, FoldedLog]
    primed: bool = False
    """Whether its replays were compressed against its day's first round's (`Primer`)."""

    @property
    def root(self) -> Path:
        """How messages name it: its day, and its name there."""
        return self.day / self.id

    def info(self) -> TournamentInfo:
        return TournamentInfo.from_json(self.record)

    def schedule(self, info: TournamentInfo) -> list[ScheduledGame]:
        if not info.seed:
            raise ResultsError(f"{self.root} was folded without its seed: it cannot be read")
        return schedule_of(info, bytes.fromhex(info.seed))

    def finished(self, schedule: object = None) -> FinishedGames:
        return FinishedGames(self.lines, self.problems)

    def games(self) -> Iterator[GameLine]:
        return iter(self.lines)

    @property
    def pruned(self) -> bool:
        """Whether its day's replays and logs were let go (`arena league prune`)."""
        return (self.day / PRUNED).exists()

    def replay_bytes(self, game: str) -> bytes | None:
        """The replay file's bytes as its folder held them; None when the round has none of
        that game or its day's replays were pruned. A ResultsError when the day's file is
        damaged or is not what was folded."""
        stored = self.replays.get(game)
        if stored is None or stored.at < 0 or self.member is None or self.pruned:
            return None
        what = f"the replay of {self.id}/{game}"
        primer = primer_of(self.day) if self.primed else None
        if self.primed and primer is None:
            raise ResultsError(f"{what}: the first round of {self.day / ROUNDS} cannot be read")
        zdict = primer.replays if primer is not None else b""
        data = _member(self.day / REPLAYS, self.member, what, zdict)
        data = data[stored.at : stored.at + stored.size]
        if hashlib.sha256(data).hexdigest() != stored.sha256:
            raise ResultsError(f"{what} in {self.day / REPLAYS} is not the one folded")
        return data

    def log_bytes(self, name: str) -> bytes | None:
        """`name`'s whole log of this round; None when it left none or it was pruned."""
        log = self.logs.get(name)
        if log is None or self.pruned:
            return None
        return _member(self.day / LOGS, log.stored, f"{name}'s log of {self.id}")

    def to_json(self, primer: Primer | None = None) -> Json:
        """Its line: the name plain (a fold looks for it), the rest compressed, against its
        day's first round when `primer` is given."""
        rest = {
            "info": self.record,
            "games": [line.to_json() for line in self.lines],
            "problems": list(self.problems),
            "replays": {game: s.to_json() for game, s in self.replays.items()},
            "member": None if self.member is None else self.member.to_json(),
            "logs": {name: log.to_json() for name, log in self.logs.items()},
            "primed": self.primed,
        }
        text = json.dumps(rest, separators=(",", ":")).encode()
        packed = pack(text, primer.line if primer is not None else b"")
        line: Json = {"round": self.id, "z": base64.b64encode(packed).decode()}
        if primer is not None:
            line["d"] = 1
        return line

    @classmethod
    def from_json(cls, day: Path, data: Any) -> FoldedRound:
        rest = json.loads(_unpacked(day, data))
        member = rest.get("member")
        return cls(
            day=day,
            id=str(data["round"]),
            record=rest["info"],
            lines=tuple(GameLine.from_json(line) for line in rest["games"]),
            problems=tuple(str(p) for p in rest.get("problems", ())),
            replays={str(g): Stored.from_json(s) for g, s in rest["replays"].items()},
            member=None if member is None else Stored.from_json(member),
            logs={str(n): FoldedLog.from_json(x) for n, x in rest.get("logs", {}).items()},
            primed=bool(rest.get("primed", False)),
        )


@dataclass(frozen=True, slots=True)
class Primer:
    """A day's first round, against which each later round of the day is compressed: its
    record and its replays repeat theirs (the players' names and paths, the rules, the
    words of a tournament.json and of a replay), and zlib given them as a dictionary keeps
    only what differs. A round's line goes from 0.53 KB a game to 0.19, its replays from
    0.93 to 0.78. The first line of a day never changes once written, so neither does its
    primer."""

    line: bytes
    """The first round's record, unpacked."""
    replays: bytes
    """The end of its replays (zlib's window, 32 KiB), or nothing if it kept none."""


WINDOW = 32 * 1024
_PRIMERS: dict[Path, Primer] = {}


def primer_of(day: Path) -> Primer | None:
    """The day's primer; None while the day has no whole first line."""
    if (kept := _PRIMERS.get(day)) is not None:
        return kept
    try:
        with (day / ROUNDS).open("rb") as journal:
            raw = journal.readline()
    except OSError:
        return None
    if not raw.endswith(b"\n"):
        return None
    try:
        data = json.loads(raw)
        line = _unpacked(day, data)
        first = FoldedRound.from_json(day, data)
    except (ValueError, KeyError, TypeError, IndexError, RecordError):
        return None
    replays = b""
    if first.member is not None and not first.pruned:
        try:
            replays = _member(day / REPLAYS, first.member, "its first round's replays")
        except ResultsError:
            return None
    if len(_PRIMERS) > 64:
        _PRIMERS.clear()
    kept = _PRIMERS[day] = Primer(line, replays[-WINDOW:])
    return kept


def pack(data: bytes, zdict: bytes) -> bytes:
    packer = zlib.compressobj(9, zdict=zdict) if zdict else zlib.compressobj(9)
    return packer.compress(data) + packer.flush()


def _unpack(data: bytes, zdict: bytes) -> bytes:
    unpacker = zlib.decompressobj(zdict=zdict) if zdict else zlib.decompressobj()
    return unpacker.decompress(data) + unpacker.flush()


def _unpacked(day: Path, data: Any) -> bytes:
    """A round's line's record, unpacked (against its day's primer if it was packed so)."""
    zdict = b""
    if data.get("d"):
        primer = primer_of(day)
        if primer is None:
            raise RecordError(f"the first round of {day / ROUNDS} cannot be read")
        zdict = primer.line
    try:
        return _unpack(base64.b64decode(data["z"]), zdict)
    except (zlib.error, binascii.Error) as error:
        raise RecordError(f"its record does not unpack ({error})") from None


def _member(path: Path, stored: Stored, what: str, zdict: bytes = b"") -> bytes:
    try:
        with path.open("rb") as data:
            data.seek(stored.at)
            raw = data.read(stored.size)
        text = _unpack(raw, zdict)
    except OSError as error:
        raise ResultsError(
            f"{what} cannot be read from {path}: {error.strerror or error}"
        ) from None
    except zlib.error as error:
        raise ResultsError(f"{what} is damaged in {path} ({error})") from None
    if stored.sha256 and hashlib.sha256(text).hexdigest() != stored.sha256:
        raise ResultsError(f"{what} in {path} is not the one folded (another SHA-256)")
    return text


def read_line(day: Path, at: int) -> FoldedRound | None:
    """The round whose line begins at `at` in the day's rounds.jsonl; None if there is no
    whole line there."""
    try:
        with (day / ROUNDS).open("rb") as journal:
            journal.seek(at)
            raw = journal.readline()
    except OSError:
        return None
    if not raw.endswith(b"\n"):
        return None
    try:
        return FoldedRound.from_json(day, json.loads(raw))
    except (ValueError, KeyError, TypeError, IndexError, RecordError):
        return None


def day_rounds(day: Path) -> Iterator[tuple[int, FoldedRound]]:
    """Every round of a day with its line's offset; a torn last line is left out, and a line
    that is no round is a ResultsError naming it (the fold never writes one)."""
    path = day / ROUNDS
    try:
        journal = path.open("rb")
    except FileNotFoundError:
        return
    with journal:
        at = 0
        for number, raw in enumerate(journal, start=1):
            if not raw.endswith(b"\n"):
                return
            try:
                yield at, FoldedRound.from_json(day, json.loads(raw))
            except (ValueError, KeyError, TypeError, IndexError, RecordError) as error:
                raise ResultsError(
                    f"{path}, line {number}, is no folded round ({error}); restore the file "
                    f"from a backup"
                ) from None
            at += len(raw)


def lines_from(day: Path, data: bytes, start: int) -> Iterator[tuple[int, FoldedRound]]:
    """The rounds of `data`, a day's rounds.jsonl as read, from the line at `start`: as
    `day_rounds` gives them, for a reader that hashes the bytes it compares (`arena league
    check` reads only the lines a day gained since it last agreed)."""
    at = start
    while (end := data.find(b"\n", at)) >= 0:
        try:
            yield at, FoldedRound.from_json(day, json.loads(data[at : end + 1]))
        except (ValueError, KeyError, TypeError, IndexError, RecordError) as error:
            raise ResultsError(
                f"{day / ROUNDS}, the line at byte {at}, is no folded round ({error}); restore "
                f"the file from a backup"
            ) from None
        at = end + 1


def days(results: Path) -> list[Path]:
    """The day folders under `results`, oldest first."""
    root = days_folder(results)
    if not root.is_dir():
        return []
    return sorted(p for p in root.iterdir() if p.is_dir() and (p / ROUNDS).is_file())


def all_rounds(results: Path) -> Iterator[FoldedRound]:
    """Every folded round under `results`, day by day."""
    for day in days(results):
        for _, folded in day_rounds(day):
            yield folded


class DayIndex:
    """Which day holds each folded round, read from `rounds.idx` once and then only its new
    end: a reader that looks up many rounds (the ladder's board, the pages) reads the index
    once, not at each look."""

    def __init__(self, results: Path) -> None:
        self._root = days_folder(results)
        self._read = 0
        self._where: dict[str, tuple[str, int]] = {}

    def _refresh(self) -> None:
        path = self._root / INDEX
        try:
            with path.open("rb") as index:
                size = os.fstat(index.fileno()).st_size
                if size < self._read:  # made again: read it whole
                    self._read, self._where = 0, {}
                index.seek(self._read)
                data = index.read(size - self._read)
        except OSError:
            return
        whole = data.rpartition(b"\n")[0]
        if not whole:
            return
        self._read += len(whole) + 1
        for raw in whole.split(b"\n"):
            parts = raw.decode("utf-8", errors="replace").split(" ")
            if len(parts) == 3 and parts[2].isdigit():
                self._where[parts[0]] = (parts[1], int(parts[2]))

    def find(self, round_id: str) -> FoldedRound | None:
        """The folded round of that name, if any."""
        if round_id not in self._where:
            self._refresh()
        where = self._where.get(round_id)
        if where is None:
            return None
        folded = read_line(self._root / where[0], where[1])
        return folded if folded is not None and folded.id == round_id else None

    def __contains__(self, round_id: str) -> bool:
        if round_id not in self._where:
            self._refresh()
        return round_id in self._where


def folded_names(results: Path) -> list[str]:
    """The name of every folded round, from the days' index."""
    try:
        data = (days_folder(results) / INDEX).read_bytes()
    except OSError:
        return []
    whole = data.rpartition(b"\n")[0]
    return [raw.split(b" ", 1)[0].decode("utf-8", "replace") for raw in whole.split(b"\n") if raw]


def find_round(results: Path, round_id: str) -> FoldedRound | None:
    """A folded round by name, its index searched rather than read whole: one look (`arena
    replay`, a page) costs a search of the index's bytes (a few ms at 1,000,000 games), not
    a parse of every line; a reader that looks up many keeps a `DayIndex`."""
    try:
        data = (days_folder(results) / INDEX).read_bytes()
    except OSError:
        return None
    key = round_id.encode() + b" "
    found = data.rfind(b"\n" + key)
    start = found + 1 if found >= 0 else (0 if data.startswith(key) else -1)
    end = data.find(b"\n", start) if start >= 0 else -1
    if end < 0:
        return None
    parts = data[start:end].decode("utf-8", errors="replace").split(" ")
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    folded = read_line(days_folder(results) / parts[1], int(parts[2]))
    return folded if folded is not None and folded.id == round_id else None


def prune_days(results: Path, before: float) -> tuple[int, int, int]:
    """Let go the replays and logs of every day whose games all began before `before`,
    their results and hashes kept in its rounds.jsonl; (rounds, games, bytes)."""
    pruned = games = size = 0
    with locked(results):
        for day in days(results):
            if (day / PRUNED).exists():
                continue
            rounds = [folded for _, folded in day_rounds(day)]
            starts = [line.started or 0.0 for r in rounds for line in r.lines]
            if not starts or max(starts) >= before:
                continue
            # Written down first: a kill before the files go leaves them named as pruned,
            # as a folder's pruned.json does; verify then says so, and a prune again ends it.
            write_atomic(day / PRUNED, f"{len(starts)} games pruned before {before}\n")
            for name in (REPLAYS, LOGS):
                with contextlib.suppress(OSError):
                    size += (day / name).stat().st_size
                    (day / name).unlink()
            games += sum(1 for r in rounds for g in r.replays.values() if g.at >= 0)
            pruned += len(rounds)
    return pruned, games, size
