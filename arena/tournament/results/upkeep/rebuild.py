"""`arena league rebuild`: a league store made again from the tournaments' folders.

Each game is committed to its tournament's games.jsonl before the store
hears of it, so the folders hold the whole league; the store is an index
that can always be made again. What the folders do not hold is the token
hashes of a league server's entrants: they are carried over when the old
store can still be read, and must be registered again otherwise.

A PostgreSQL league is not made again but filled in: the server keeps its
own data safe, other coordinators' tournaments (whose folders are on other
machines) are in it too, and a game already there counts once.

A league holds one run under a name: a folder whose name the league, or a
folder read before it, holds from another run is left out, and the notes say
which and what to do; so is a game the league records otherwise.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.store import (
    LeagueConflictError,
    LeagueStore,
    SqliteStore,
    StoreError,
    is_url,
    open_store,
    recorded,
)
from arena.tournament.info import TournamentInfo
from arena.tournament.results.days import FoldedRound, all_rounds
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.folding import FOLDING
from arena.tournament.results.lock import FolderBusyError, FolderLock

Record = TournamentFolder | FoldedRound
"""A tournament's record: its folder, or its round folded into its day's."""

_SIDECARS = ("", "-wal", "-shm")
"""The files of one SQLite store in WAL mode: the database, its log and its index."""


@dataclass(frozen=True, slots=True)
class Rebuilt:
    tournaments: tuple[tuple[str, int], ...]
    """Each tournament taken in, with its number of games."""
    notes: tuple[str, ...]
    """Folders left out and lines ignored, each with why."""
    entrants: int | None
    """Entrants whose tokens were carried over; None when there was no old store to read."""
    set_aside: tuple[Path, ...]
    """The old store's files, renamed, not deleted."""


def rebuild(league: Path | str, results: Sequence[Path]) -> Rebuilt:
    """Make `league` again from every tournament folder under `results` that belongs to it."""
    target = recorded(league)
    notes: list[str] = []
    found: list[tuple[Record, TournamentInfo]] = []
    for info_path in sorted(p for root in results for p in root.glob("*/tournament.json")):
        folder = TournamentFolder(info_path.parent)
        try:
            info = folder.info()
        except (OSError, ValueError) as error:
            notes.append(f"{folder.root}: left out, its tournament.json is unreadable ({error})")
            continue
        if not info.played:
            continue  # it never began to play: no games
        if recorded(info.plan.league) != target:
            notes.append(f"{folder.root}: left out, it belongs to the league {info.plan.league}")
            continue
        found.append((folder, info))
    for root in results:  # finished rounds folded into their days' records
        for folded in all_rounds(root):
            if (root / folded.id / FOLDING).is_file():
                found = [(f, i) for f, i in found if f.root != root / folded.id]
            info = folded.info()
            if recorded(info.plan.league) != target:
                notes.append(
                    f"{folded.root}: left out, it belongs to the league {info.plan.league}"
                )
                continue
            found.append((folded, info))
    if not found:
        where = ", ".join(str(r) for r in results)
        raise StoreError(f"no tournament of the league {target} under {where}; nothing rebuilt")
    locks = []
    try:
        for record, _ in found:  # a running tournament would add games behind our back
            if isinstance(record, TournamentFolder):
                locks.append(FolderLock.take(record.root))
        if isinstance(league, str) and is_url(league):
            return _fill_in(league, found, notes)
        return _rebuild(Path(league), found, notes)
    except FolderBusyError as error:
        raise StoreError(f"cannot rebuild while a tournament runs: {error}") from None
    finally:
        for lock in locks:
            lock.release()


def _rebuild(league: Path, found: list[tuple[Record, TournamentInfo]], notes: list[str]) -> Rebuilt:
    entrants = _old_entrants(league)
    fresh = league.with_name(league.name + ".rebuilding")
    _remove(fresh)
    store = SqliteStore(fresh)
    try:
        if entrants is not None:
            for name, token_hash in entrants.items():
                store.set_entrant(name, token_hash)
        taken = _fill(store, found, notes)
    finally:
        store.close()
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = []
    for suffix in _SIDECARS:
        old = league.with_name(league.name + suffix)
        if old.exists():
            moved = old.with_name(f"{league.name}.before-rebuild-{stamp}{suffix}")
            os.replace(old, moved)
            aside.append(moved)
    os.replace(fresh, league)
    kept = None if entrants is None else len(entrants)
    return Rebuilt(tuple(taken), tuple(notes), kept, tuple(aside))


def _fill_in(league: str, found: list[tuple[Record, TournamentInfo]], notes: list[str]) -> Rebuilt:
    store = open_store(league)
    try:
        return Rebuilt(tuple(_fill(store, found, notes)), tuple(notes), len(store.entrants()), ())
    finally:
        store.close()


def _fill(
    store: LeagueStore, found: list[tuple[Record, TournamentInfo]], notes: list[str]
) -> list[tuple[str, int]]:
    """Each folder's tournament and games into `store`; each taken in, with its games."""
    taken = []
    taken_from: dict[str, Path] = {}
    for folder, info in found:
        try:
            games = folder.finished(folder.schedule(info))
        except (ResultsError, OSError, ValueError) as error:
            notes.append(f"{folder.root}: left out: {error}")
            continue
        notes.extend(f"{folder.root}: {problem}" for problem in games.problems)
        if info.id in taken_from:
            notes.append(
                f"{folder.root}: left out: {taken_from[info.id]} is another run under the name "
                f"{info.id!r}, taken in first; a league holds one run a name: move one of the "
                f"two away and rebuild again"
            )
            continue
        try:
            store.add_tournament(info.id, info.to_json(), started=info.created)
        except LeagueConflictError:  # a database holds that name from another coordinator
            notes.append(
                f"{folder.root}: left out: the league holds another run under the name "
                f"{info.id!r}; to take this one in instead, `arena league remove {info.id} "
                f"--league {store.where}` and rebuild again"
            )
            continue
        taken_from[info.id] = folder.root
        added = 0
        for line in games.lines:
            try:
                store.add_game(info.id, line)
                added += 1
            except LeagueConflictError as error:
                notes.append(f"{folder.root}: {line.game} left out: {error}")
        taken.append((info.id, added))
    return taken


def _old_entrants(league: Path) -> dict[str, str] | None:
    """The registered entrants of the old store, if it can still say, damaged or not."""
    if not league.exists():
        return None
    try:
        old = sqlite3.connect(f"file:{league}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        rows = old.execute("SELECT name, token_hash FROM entrants WHERE revoked = 0")
        return {str(name): str(token) for name, token in rows.fetchall()}
    except sqlite3.Error:
        return None
    finally:
        old.close()


def _remove(store: Path) -> None:
    for suffix in _SIDECARS:
        with contextlib.suppress(FileNotFoundError):
            store.with_name(store.name + suffix).unlink()
