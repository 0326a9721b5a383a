"""The ladder's rounds on disk: which one to resume, the number of the next, and the damaged
ones set aside.

A kill can leave a round's folder made and its `tournament.json` not yet written, a disk can
lose a file, a hand can delete a folder. Any of these once held the ladder for good, the same
error once a second: the round it could not read was the round it tried first. So a round
stopped as it was laid out (no `tournament.json` yet, and nothing but what a start writes) is
laid out anew under its own number, as a night's is; one whose `tournament.json` is damaged,
or that holds what no round's start writes, is set aside (renamed `NAME.set-aside`, never
deleted: its games in the league store stay there, and the folder can be looked at or put
back by hand), said once, and the ladder plays on. New rounds are numbered after every
round on disk, set aside, folded into its day's record or in the league store, so that a
folder removed by hand never makes a new round take the name of one on record.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.league.ladder.rounds import PREFIX, ROUND
from arena.tournament.config import TooFewBotsError, TournamentError
from arena.tournament.info import RunStatus, TournamentInfo
from arena.tournament.report.summary import StoppedError
from arena.tournament.results.days import folded_names
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.folding import fold, sweep

RESUME_TRIES = 3
"""Tries to resume an unfinished round before it is set aside."""

ASIDE = ".set-aside"
"""The suffix of a round set aside: no longer a round's name (`ROUND` matches whole names)."""


class _Laid(enum.Enum):
    NEVER_BEGAN = "never began"
    """A round folder with no tournament.json yet: a kill (or a full disk) as it was laid
    out."""


NEVER_BEGAN = _Laid.NEVER_BEGAN


@dataclass(frozen=True, slots=True)
class Unfinished:
    """A round a kill or a pause left with games to play: resumed before any new one."""

    number: int
    folder: Path
    seats: tuple[str, ...]


class RoundFolders:
    """The rounds in a results folder, listed once: later rounds are this ladder's own.

    With `compact`, a finished round found on disk (a kill before its fold, or a fold
    stopped half way) is folded into its day's record once the league store holds its
    games (`arena.tournament.results.folding`)."""

    def __init__(self, out: Path, say: Callable[[str], None], compact: bool = False) -> None:
        self._out = out
        self._say = say
        self._compact = compact
        self._open: set[int] | None = None
        """Rounds on disk that may not be finished, to read at the next choice: every folder
        at the first (what a kill or an earlier run left), then each round that ended since.
        A finished one is read once and dropped, so a choice never lists the whole folder."""
        self._highest = -1
        """The highest round on disk, set aside or not."""
        self._unresumable: dict[int, int] = {}
        """Unfinished rounds that failed to resume, by number: how many times in a row."""

    def folder(self, number: int) -> Path:
        return self._out / f"{PREFIX}{number:06d}"

    def listed(self) -> set[int]:
        """Every round with a folder, and the highest number of any, set aside, folded into
        its day's record or not."""
        if not self._out.is_dir():
            return set()
        if self._compact:
            sweep(self._out)  # what folded rounds left on their way out
        for name in folded_names(self._out):  # a folded round taken out of the store by hand
            if (match := ROUND.fullmatch(name)) is not None:
                self._highest = max(self._highest, int(match.group(1)))
        found = set()
        for path in self._out.iterdir():
            match = ROUND.fullmatch(path.name.split(ASIDE)[0])
            if match is None or not path.is_dir():
                continue
            self._highest = max(self._highest, int(match.group(1)))
            if path.name == match.group(0):
                found.add(int(match.group(1)))
        return found

    def ended(self, number: int) -> None:
        """A round this ladder played ended (finished or stopped): read at the next choice."""
        if self._open is not None and self.folder(number).is_dir():
            self._open.add(number)
            self._highest = max(self._highest, number)

    def began(self, number: int) -> bool:
        """Whether the round's play began (its entrants written in its tournament.json)."""
        try:
            return TournamentFolder(self.folder(number)).info().played
        except (OSError, ValueError):
            return False

    def resumed(self, number: int) -> None:
        self._unresumable.pop(number, None)

    def resume_failed(self, number: int, error: Exception) -> None:
        """An unfinished round is resumed before any new one, so one that can never be (its
        journal or seed lost, say) would hold the ladder for good: after `RESUME_TRIES` tries
        it is set aside. Faults that pass (the store, the disk, too few bots yet) are not
        counted."""
        if not isinstance(error, TournamentError) or isinstance(
            error, TooFewBotsError | StoppedError
        ):
            return
        tries = self._unresumable[number] = self._unresumable.get(number, 0) + 1
        if tries >= RESUME_TRIES:
            del self._unresumable[number]
            why = f"it could not be resumed, {tries} tries: {error}"
            self.set_aside(self.folder(number), why)

    def next(self, busy: set[int], recorded: Mapping[str, int]) -> Unfinished | int:
        """A round left unfinished, else the number of a new round (one that never began
        is laid out anew under its own number). `recorded`: the ladder's rounds in the
        league store, with their games."""
        if self._open is None:
            self._open = self.listed()
        fresh = None
        for number in sorted(self._open - busy):
            folder = self.folder(number)
            if not folder.is_dir():
                self._open.discard(number)  # removed by hand: nothing to resume
                continue
            info = self._read(folder)
            if info is NEVER_BEGAN:
                fresh = number if fresh is None else fresh
            elif info is None or info.status is RunStatus.FINISHED:
                self._open.discard(number)
                if info is not None and self._compact:
                    self.fold(folder, recorded.get(folder.name, 0))
            elif info.played:
                return Unfinished(number, folder, info.players())
            elif fresh is None:
                fresh = number
        if fresh is not None:
            return fresh
        on_record = (ROUND.fullmatch(tid) for tid in recorded)  # folded rounds are there
        stored = max((int(m.group(1)) for m in on_record if m is not None), default=-1)
        return max(self._highest, stored, *busy, -1) + 1

    def fold(self, folder: Path, stored: int) -> bool:
        """Fold a finished round into its day's record if the league store holds each of its
        games (else it stays, for `arena league check` to say); whether it was. A fault is
        said, the folder left whole."""
        try:
            games = TournamentFolder(folder)
            info = games.info()
            if len(games.finished(games.schedule(info)).lines) != stored:
                return False
            fold(folder)
        except (ResultsError, OSError, ValueError) as error:
            self._say(f"{folder.name} not folded into its day's record, kept as it is: {error}")
            return False
        return True

    def _read(self, folder: Path) -> TournamentInfo | _Laid | None:
        """Its `tournament.json`; `NEVER_BEGAN` for a round a kill (or a full disk) stopped
        as it was being laid out, which is laid out anew under its number; None for one
        that cannot be read, then set aside. A fault of the disk (an OSError but a missing
        file) is raised: the round is whole, the disk is not."""
        round_folder = TournamentFolder(folder)
        try:
            return round_folder.info()
        except FileNotFoundError:
            if round_folder.never_played():  # only what a round's start writes, if that
                return NEVER_BEGAN
            why = "it has no tournament.json, and files a round never began with"
        except (ValueError, UnicodeDecodeError, KeyError, TypeError) as error:
            why = f"its tournament.json cannot be read ({type(error).__name__}: {error})"
        self.set_aside(folder, why)
        return None

    def set_aside(self, folder: Path, why: str) -> Path:
        """Rename `folder` out of the ladder's way, say so once; the new path."""
        aside = folder.with_name(folder.name + ASIDE)
        tries = 1
        while aside.exists():
            tries += 1
            aside = folder.with_name(f"{folder.name}{ASIDE}{tries}")
        folder.rename(aside)
        self._say(
            f"{folder.name} set aside as {aside.name}: {why}. Its games in the league store, if "
            f"any, are kept; look at the folder, then remove it or put it back by hand "
            f"(`arena league check` compares the store with the folders)"
        )
        return aside
