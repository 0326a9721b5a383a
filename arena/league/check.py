"""`arena league check`: the league against the results folders, every difference said.

The folders are the record (each game is in its games.jsonl before the league
hears of it, and a finished ladder round folded into its day's record keeps them,
`arena.tournament.results.days`), so a league that holds a tournament no folder has, another run
under a folder's name, a game a folder lacks or a game recorded otherwise is
a league that says something false. The check reads each folder under its
lock, as a rebuild does, so a game between its games.jsonl and the league is
never taken for a difference; a folder being played is said to be so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.store import LeagueStore, StoredTournament, StoreError, is_url, open_store, recorded
from arena.tournament.info import TournamentInfo
from arena.tournament.results.days import FoldedRound, all_rounds
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.folding import FOLDING
from arena.tournament.results.in_league import Difference, differences
from arena.tournament.results.lock import FolderBusyError, FolderLock


@dataclass(frozen=True, slots=True)
class Checked:
    differences: tuple[Difference, ...]
    notes: tuple[str, ...]
    """Folders of other leagues, and lines each folder's games.jsonl ignores."""
    tournaments: int
    """Tournaments in the league."""
    games: int
    """Games in the league."""


def check(league: Path | str, results: Sequence[Path]) -> Checked:
    """Compare `league` with every tournament folder under `results` that belongs to it."""
    if not (isinstance(league, str) and is_url(league)) and not Path(league).is_file():
        raise StoreError(f"there is no league store at {league}: nothing to check")
    store = open_store(league)
    try:
        return _check(store, recorded(league), results)
    finally:
        store.close()


def _check(store: LeagueStore, target: str, results: Sequence[Path]) -> Checked:
    held: dict[str, StoredTournament] = {}
    for tid, _ in store.tournaments():
        stored = store.tournament(tid)
        if stored is not None:
            held[tid] = stored
    found: list[Difference] = []
    notes: list[str] = []
    folders: dict[str, Path] = {}
    folded = {r.id: r for root in results for r in all_rounds(root)}
    for info_path in sorted(p for root in results for p in root.glob("*/tournament.json")):
        folder = TournamentFolder(info_path.parent)
        if folder.root.name in folded and (folder.root / FOLDING).is_file():
            continue  # folded, its folder not yet removed: the day's record is the round
        try:
            info = folder.info()
        except (OSError, ValueError) as error:
            found.append(Difference(folder.root.name, f"{info_path} is unreadable ({error})"))
            continue
        if recorded(info.league) != target:
            notes.append(f"{folder.root}: left out, it belongs to the league {info.league}")
            continue
        if not info.played and info.id not in held:
            continue  # stopped before play began: nothing to hold
        if info.id in folders:
            found.append(Difference(info.id, f"two folders: {folders[info.id]} and {folder.root}"))
            continue
        folders[info.id] = folder.root
        found += _compare(store, folder, info, notes)
    for kept in folded.values():
        found += _compare_folded(store, kept, target, folders, notes)
    where = ", ".join(str(root) for root in results)
    found += [
        Difference(tid, f"in the league ({stored.games} games), with no folder under {where}")
        for tid, stored in held.items()
        if tid not in folders
    ]
    games = sum(stored.games for stored in held.values())
    return Checked(tuple(found), tuple(notes), len(held), games)


def _compare_folded(
    store: LeagueStore,
    folded: FoldedRound,
    target: str,
    folders: dict[str, Path],
    notes: list[str],
) -> list[Difference]:
    """A round folded into its day's record against the league: no lock, a folded round
    never changes."""
    try:
        info = folded.info()
    except (ValueError, KeyError, TypeError) as error:
        return [Difference(folded.id, f"{folded.root} is unreadable ({error})")]
    if recorded(info.league) != target:
        notes.append(f"{folded.root}: left out, it belongs to the league {info.league}")
        return []
    if info.id in folders:
        return [Difference(info.id, f"two records: {folders[info.id]} and {folded.root}")]
    folders[info.id] = folded.root
    notes.extend(f"{folded.root}: {problem}" for problem in folded.problems)
    held = store.tournament(info.id)
    if held is None:
        return [
            Difference(info.id, f"{folded.root} has {len(folded.lines)} games; the league has none")
        ]
    return differences(held, store.games_of(info.id), info, folded.lines, folded.root)


def _compare(
    store: LeagueStore,
    folder: TournamentFolder,
    info: TournamentInfo,
    notes: list[str],
) -> list[Difference]:
    try:
        lock = FolderLock.take(folder.root)  # a run adds games: compare it once it stops
    except FolderBusyError as error:
        return [Difference(info.id, f"not compared: {error}; check again once it stops")]
    try:
        try:
            games = folder.finished(folder.schedule(info)) if info.played else None
        except (ResultsError, OSError, ValueError) as error:
            return [Difference(info.id, f"not compared: {folder.root} cannot be read ({error})")]
        lines = () if games is None else games.lines
        if games is not None:
            notes.extend(f"{folder.root}: {problem}" for problem in games.problems)
        held = store.tournament(info.id)  # under the lock: as it stands with the folder
        if held is None:
            return [
                Difference(info.id, f"{folder.root} has {len(lines)} games; the league has none")
            ]
        return differences(held, store.games_of(info.id), info, lines, folder.root)
    finally:
        lock.release()
