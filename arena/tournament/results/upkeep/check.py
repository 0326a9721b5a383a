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

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.store import LeagueStore, StoredTournament, StoreError, is_url, open_store, recorded
from arena.tournament.info import TournamentInfo
from arena.tournament.results.days import (
    ROUNDS,
    DayIndex,
    FoldedRound,
    days,
    find_round,
    lines_from,
)
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.folding import FOLDING
from arena.tournament.results.in_league import Difference, differences
from arena.tournament.results.lock import FolderBusyError, FolderLock
from arena.tournament.results.upkeep.check_memory import (
    DayMark,
    Memory,
    Stamp,
    recall,
    remember,
    rounds_of,
    stamp_of,
)


@dataclass(frozen=True, slots=True)
class Checked:
    differences: tuple[Difference, ...]
    notes: tuple[str, ...]
    """Folders of other leagues, and lines each folder's games.jsonl ignores: of what this
    check read (one since the last that agreed reads only what changed)."""
    tournaments: int
    """Tournaments in the league."""
    games: int
    """Games in the league."""


def check(league: Path | str, results: Sequence[Path], full: bool = False) -> Checked:
    """Compare `league` with every tournament folder under `results` that belongs to it:
    what changed since the last check that agreed, or everything when `full` or when
    there is no such check to start from (`arena.tournament.results.upkeep.check_memory`).
    Only a check of everything reads every page of an SQLite store
    (`LeagueStore.check_pages`: about 1.2 ms per 1,000 games, over a second at a million):
    one of what changed reads the pages of what changed, which SQLite refuses if damaged,
    and leaves a damaged page elsewhere to the next check in full."""
    if not (isinstance(league, str) and is_url(league)) and not Path(league).is_file():
        raise StoreError(f"there is no league store at {league}: nothing to check")
    store = open_store(league, check_pages=False)  # only a check in full reads every page
    try:
        target = recorded(league)
        epoch, generation = store.generation()  # before anything is read: a later write is after
        memories = [recall(root, target, epoch) for root in results]
        known = [m for m in memories if m is not None and m.generation <= generation]
        if full or len(known) != len(results):
            store.check_pages()
            checked, kept = _check(store, target, results, epoch, generation)
        else:
            checked, kept = _since(store, target, results, known, epoch, generation)
        if not checked.differences:
            for root, memory in zip(results, kept, strict=True):
                remember(root, memory)
        return checked
    finally:
        store.close()


def _check(
    store: LeagueStore, target: str, results: Sequence[Path], epoch: str, generation: int
) -> tuple[Checked, list[Memory]]:
    held: dict[str, StoredTournament] = {}
    for tid, _ in store.tournaments():
        stored = store.tournament(tid)
        if stored is not None:
            held[tid] = stored
    found: list[Difference] = []
    notes: list[str] = []
    folders: dict[str, Path] = {}
    kept = [Memory(target, epoch, generation) for _ in results]
    folded: dict[str, FoldedRound] = {}
    for root, memory in zip(results, kept, strict=True):
        for day in days(root):
            memory.days[day.name], rounds, _ = _read_day(day, None)
            memory.rounds[day.name] = [kept_round.id for kept_round in rounds]
            for kept_round in rounds:
                folded.setdefault(kept_round.id, kept_round)
    for root, memory in zip(results, kept, strict=True):
        for info_path in sorted(root.glob("*/tournament.json")):
            folder = TournamentFolder(info_path.parent)
            if folder.root.name in folded and (folder.root / FOLDING).is_file():
                continue  # folded, its folder not yet removed: the day's record is the round
            stamp = _folder_stamp(folder.root)
            tid, more = _walk_folder(store, target, folder, folders, held.__contains__, notes)
            found += more
            memory.folders[folder.root.name] = (tid, stamp)
    for kept_round in folded.values():
        found += _compare_folded(store, kept_round, target, folders, notes)
    where = ", ".join(str(root) for root in results)
    found += [
        Difference(tid, f"in the league ({stored.games} games), with no folder under {where}")
        for tid, stored in held.items()
        if tid not in folders
    ]
    games = sum(stored.games for stored in held.values())
    return Checked(tuple(found), tuple(notes), len(held), games), kept


def _read_day(day: Path, seen: DayMark | None) -> tuple[DayMark, list[FoldedRound], bool]:
    """A day's record to compare, its stamp taken before it is read: the rounds after what
    `seen` read when those bytes are still its head, byte for byte (a fold only appends),
    else every round (and True)."""
    stamp = stamp_of(day / ROUNDS)
    try:
        data = (day / ROUNDS).read_bytes()
    except OSError:
        data = b""
    end = data.rfind(b"\n") + 1
    view = memoryview(data)
    digest = hashlib.sha256()
    start = 0
    if seen is not None and seen.length <= end:
        digest.update(view[: seen.length])
        if digest.hexdigest() == seen.sha256:
            start = seen.length
        else:
            digest = hashlib.sha256()
    digest.update(view[start:end])
    rounds = [kept_round for _, kept_round in lines_from(day, data, start)]
    return DayMark(stamp, end, digest.hexdigest()), rounds, start == 0


def _folder_stamp(root: Path) -> Stamp:
    return stamp_of(root / "tournament.json", root / "games.jsonl", root / FOLDING)


def _walk_folder(
    store: LeagueStore,
    target: str,
    folder: TournamentFolder,
    folders: dict[str, Path],
    holds: Callable[[str], bool],
    notes: list[str],
) -> tuple[str, list[Difference]]:
    """One tournament folder against the league: its tournament's id ("" when it is none
    of the league's) and the differences."""
    info_path = folder.root / "tournament.json"
    try:
        info = folder.info()
    except (OSError, ValueError) as error:
        return "", [Difference(folder.root.name, f"{info_path} is unreadable ({error})")]
    if recorded(info.plan.league) != target:
        notes.append(f"{folder.root}: left out, it belongs to the league {info.plan.league}")
        return "", []
    if not info.played and not holds(info.id):
        return info.id, []  # stopped before play began: nothing to hold
    if info.id in folders:
        return info.id, [Difference(info.id, f"two folders: {folders[info.id]} and {folder.root}")]
    folders[info.id] = folder.root
    return info.id, _compare(store, folder, info, notes)


def _since(
    store: LeagueStore,
    target: str,
    results: Sequence[Path],
    memories: Sequence[Memory],
    epoch: str,
    generation: int,
) -> tuple[Checked, list[Memory]]:
    """What changed since the check that agreed at each memory: the days and folders whose
    stamps moved, read whole, and the tournaments the store wrote since, each against its
    record. What neither side touched agreed then and agrees still."""
    found: list[Difference] = []
    notes: list[str] = []
    folders: dict[str, Path] = {}
    kept = [Memory(target, epoch, generation, dict(m.days), dict(m.folders)) for m in memories]

    changed = dict.fromkeys(store.changed_since(min(m.generation for m in memories)))
    for root, memory, last in zip(results, kept, memories, strict=True):
        present = {day.name: day for day in days(root)}
        for name in set(last.days) - set(present):
            changed.update(dict.fromkeys(rounds_of(root, name)))  # a day gone: its rounds
            del memory.days[name]
        for name, day in present.items():
            seen = last.days.get(name)
            if seen is not None and seen.stamp == stamp_of(day / ROUNDS):
                continue
            memory.days[name], rounds, whole = _read_day(day, seen)
            ids = [kept_round.id for kept_round in rounds]
            for kept_round in rounds:
                found += _compare_folded(store, kept_round, target, folders, notes)
            before = rounds_of(root, name)
            if whole:  # read again from its first line: a round it no longer has is a change
                changed.update(dict.fromkeys(set(before) - set(ids)))
            memory.rounds[name] = ids if whole else [*before, *ids]
        present_folders = {p.parent.name: p.parent for p in root.glob("*/tournament.json")}
        for name in set(last.folders) - set(present_folders):
            changed[last.folders[name][0]] = None  # a folder gone: its tournament
            del memory.folders[name]
        for name, path in sorted(present_folders.items()):
            stamp = _folder_stamp(path)
            if last.folders.get(name, ("", ()))[1] == stamp:
                continue
            folder = TournamentFolder(path)
            if (path / FOLDING).is_file() and find_round(root, name) is not None:
                memory.folders[name] = ("", stamp)
                continue  # folded, its folder not yet removed: the day's record is the round
            tid_found, more = _walk_folder(store, target, folder, folders, _holds(store), notes)
            found += more
            memory.folders[name] = (tid_found, stamp)
    found += _changed(store, target, results, kept, [t for t in changed if t], folders, notes)
    tournaments, games = store.counts()
    return Checked(tuple(found), tuple(notes), tournaments, games), kept


def _holds(store: LeagueStore) -> Callable[[str], bool]:
    """Whether the league holds a tournament of that name, asked of the store itself."""
    return lambda tid: store.tournament(tid) is not None


def _changed(
    store: LeagueStore,
    target: str,
    results: Sequence[Path],
    kept: Sequence[Memory],
    changed: Sequence[str],
    folders: dict[str, Path],
    notes: list[str],
) -> list[Difference]:
    """Each tournament written or lost since the last check, not yet compared: against its
    record (a folded round, or a folder the memory names), or said to have none."""
    found: list[Difference] = []
    indexes = [DayIndex(root) for root in results]
    by_id = {
        tid: root / name
        for root, memory in zip(results, kept, strict=True)
        for name, (tid, _) in memory.folders.items()
        if tid
    }
    for tid in changed:
        if tid in folders:
            continue
        kept_round = next((r for index in indexes if (r := index.find(tid)) is not None), None)
        if kept_round is not None:
            found += _compare_folded(store, kept_round, target, folders, notes)
            continue
        if tid in by_id and (by_id[tid] / "tournament.json").is_file():
            _, more = _walk_folder(
                store, target, TournamentFolder(by_id[tid]), folders, _holds(store), notes
            )
            found += more
            if tid in folders:
                continue
        held = store.tournament(tid)
        if held is not None and tid not in folders:
            where = ", ".join(str(root) for root in results)
            found.append(
                Difference(tid, f"in the league ({held.games} games), with no folder under {where}")
            )
    return found


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
    if recorded(info.plan.league) != target:
        notes.append(f"{folded.root}: left out, it belongs to the league {info.plan.league}")
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
