"""The ladder's faults: each said once, with its cause and its way out, and counted after.

The ladder tries again every second while something is wrong (a full disk, a store that
cannot be reached, a round that cannot start), since most faults end by themselves or by a
hand that does not tell the server. Saying the fault at every try filled the log with the
same line once a second and still left out the one thing the organiser needed: which path,
and what to do. So a fault is said when it begins, again at most every `REMIND_S` with how
many tries it has failed, and once more when the ladder plays again; the status shows it
with its count meanwhile, and /metrics its kind.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from arena.matchmaking import LadderError
from arena.store import StoreError
from arena.store.causes import Cause, cause_of, folder_advice
from arena.tournament.config import TournamentError

REMIND_S = 600.0
"""A fault that lasts is said again this often, with its count: a log read an hour later
still shows that it held, without a line a second."""

ROOM_MB = 64
"""Free space a round needs, in MiB: its folder, journal, replays and bots' logs, with room
to spare (a round of three games writes well under a MiB, its bots' logs a few)."""

LADDER_TROUBLES = STORE, DISK, ROUND, OTHER = ("store", "disk", "round", "other")
"""The kinds of fault: the /metrics label of the one that holds (a few fixed values)."""


@dataclass(frozen=True, slots=True)
class Fault:
    """What is wrong, said for a person: what failed, and what to do."""

    kind: str
    """One of `LADDER_TROUBLES`."""
    text: str
    key: str = ""
    """What makes two faults the same, where the text holds a figure that moves (the space
    left on a disk): empty for the text itself."""

    def same(self, other: Fault) -> bool:
        return (self.key or self.text) == (other.key or other.text)


def fault_of(error: BaseException, out: Path) -> Fault:
    """`error`, from playing or choosing a round with results in `out`, as a fault. A full
    disk is said as one (its path, the room free and the room needed) however deep in the
    tournament it was met: the tournament's own words for it end with a resume command, and
    the ladder resumes its rounds by itself."""
    full = _full_disk(error)
    if full is not None:
        return Fault(DISK, _disk(full, out), str(full))
    if isinstance(error, StoreError):
        if error.cause is Cause.FULL:
            return Fault(DISK, f"{error} ({_room(out)})", str(error))
        return Fault(STORE, str(error))
    if isinstance(error, OSError):
        return Fault(DISK, _disk(error, out), str(error))
    if isinstance(error, TournamentError | LadderError):
        return Fault(ROUND, str(error))
    return Fault(OTHER, f"{type(error).__name__}: {error}")


def _full_disk(error: BaseException) -> OSError | None:
    """The full disk under `error`, if it is one: the error itself, or the one it was
    raised in place of (a tournament says a full disk as a `TournamentError`)."""
    seen: BaseException | None = error
    for _ in range(4):  # the tournament's error, its results error, the OSError
        if seen is None:
            return None
        if isinstance(seen, OSError) and cause_of(seen) is Cause.FULL:
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def _disk(error: OSError, out: Path) -> str:
    path = Path(error.filename) if isinstance(error.filename, str) else out
    cause = cause_of(error)
    if cause is Cause.FULL:
        return f"the disk holding {path} is full: {_room(path)}"
    return f"{path}: {error.strerror or error} ({cause.value}): {folder_advice(cause)}"


def _room(path: Path) -> str:
    """How much is free where `path` is, how much a round needs, and what to do."""
    where = path
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        free = f"{shutil.disk_usage(where).free / 2**20:.0f} MiB free"
    except OSError:
        free = "its free space unknown"
    return (
        f"{free} there, a round needs {ROOM_MB} MiB; free some space on that disk and the "
        "ladder goes on by itself"
    )


class Troubles:
    """The fault that holds now: said when it begins, at most every `REMIND_S` while it
    lasts (with its count), and when it ends."""

    def __init__(
        self, say: Callable[[str], None], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._say = say
        self._clock = clock
        self.fault: Fault | None = None
        self.count = 0
        """How many tries in a row it failed."""
        self._since = 0.0
        self._said = 0.0

    def happened(self, fault: Fault) -> None:
        now = self._clock()
        if self.fault is not None and fault.same(self.fault):
            self.fault = fault  # its figures as they are now
            self.count += 1
            if now - self._said >= REMIND_S:
                self._said = now
                self._say(f"still: {fault.text} ({self._tries()})")
            return
        self.fault, self.count, self._since, self._said = fault, 1, now, now
        self._say(fault.text)

    def cleared(self, kinds: frozenset[str] = frozenset(LADDER_TROUBLES)) -> None:
        """The ladder got past the fault (if it is of `kinds`): said, and forgotten."""
        if self.fault is not None and self.fault.kind in kinds:
            self._say(f"going on again, past: {self.fault.text} ({self._tries()})")
            self.fault = None
            self.count = 0

    @property
    def seconds(self) -> float:
        """How long the fault has held."""
        return self._clock() - self._since if self.fault is not None else 0.0

    def said(self) -> str | None:
        """The fault with its count, for the status; None while all is well."""
        if self.fault is None:
            return None
        return self.fault.text if self.count == 1 else f"{self.fault.text} ({self._tries()})"

    def _tries(self) -> str:
        return f"{self.count} tries failed in {self.seconds:.0f} s"


class StoreWait:
    """A league store failing the ladder's choices of a table, waited for: one that passes by
    itself (a database restarting, a lock) up to `patience` seconds, the ladder going on by
    itself once it answers; past that, or a fault that needs a hand (a damaged store, a
    refused login), stops the ladder. A full disk under an SQLite store is waited for as a
    full disk is: it ends once there is room."""

    def __init__(self, patience: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.patience = patience
        self._clock = clock
        self._since: float | None = None

    def failed(self, error: StoreError, out: Path) -> tuple[Fault, bool]:
        """The fault to say, and whether the ladder stops for it."""
        fault = fault_of(error, out)
        now = self._clock()
        if self._since is None:
            self._since = now
        if fault.kind != STORE:
            return fault, False
        if not error.cause.passing:
            return fault, True
        if now - self._since > self.patience:
            waited = f"{now - self._since:.0f} s"
            return Fault(STORE, f"the league store failed for {waited}: {fault.text}"), True
        waiting = f"{fault.text}. Waiting up to {self.patience:g} s"
        return Fault(STORE, waiting, fault.key), False

    def answered(self) -> None:
        """A choice read the store: the next failure is a new outage."""
        self._since = None
