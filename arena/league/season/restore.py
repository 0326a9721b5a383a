"""`arena league archive --check FILE` and `arena league restore FILE --to DIR`.

A check unpacks the archive into a folder of its own (never onto the league),
compares every member with the manifest's hash, and then does on the season
inside what an organiser would do on the league: `arena verify` on every
finished tournament, and `arena league check` of the store against the
folders. A restore unpacks into a folder beside DIR, refuses it whole if any
member differs, and only then gives it DIR's name.

The records say where the league was: each tournament.json names its store's
path, and a night played by submitted versions the paths of their trees and
line-up. A restored season is the same league in another place, so those
paths are said anew, from the places the manifest names to the restored
folder's (`relocate`); nothing else of a record changes, so the ratings, the
verdicts and the check on the restored folder are the original's.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from arena.league.season.manifest import POSTGRES_STORE, SQLITE_STORE, SUBMISSIONS, ArchiveError
from arena.league.season.unpack import BOUNDS, Limits, Unpacked, make_links, unpack
from arena.store import is_url, recorded
from arena.store.league_store import StoreError
from arena.tournament.info import TournamentInfo
from arena.tournament.results.in_league import Difference
from arena.tournament.results.upkeep.check import check
from arena.tournament.results.verify import Verdict, VerifyError, verify
from arena.tournament.versions import PINS_FILE

INFO = "tournament.json"


@dataclass(frozen=True, slots=True)
class Restored:
    folder: Path
    unpacked: Unpacked
    relocated: int
    """Records whose paths were said anew."""

    @property
    def store(self) -> Path:
        return self.folder / self.unpacked.manifest.store


@dataclass(frozen=True, slots=True)
class Checked:
    unpacked: Unpacked
    verdicts: tuple[Verdict, ...]
    unverified: tuple[str, ...]
    """Tournaments not finished: no seed is revealed yet, no deal can be checked."""
    unreadable: tuple[str, ...]
    """Tournaments that cannot be verified as they are, and why."""
    differences: tuple[Difference, ...]
    """The store against the folders, as `arena league check` says them."""

    @property
    def ok(self) -> bool:
        return (
            not self.unpacked.problems
            and not self.unreadable
            and all(v.ok for v in self.verdicts)
            and not self.differences
        )


def check_archive(archive: Path, limits: Limits = BOUNDS) -> Checked:
    """Every member against the manifest, every finished tournament verified, the store
    against its folders: all in a folder of the check's own, removed after."""
    work = Path(tempfile.mkdtemp(prefix="arena-season-check-"))
    try:
        unpacked = unpack(archive, work, limits)
        make_links(unpacked.manifest, work)
        relocate(unpacked, work)
        verdicts, unverified, unreadable = _verified(work)
        differences: tuple[Difference, ...] = ()
        if unpacked.manifest.store == SQLITE_STORE and (work / SQLITE_STORE).is_file():
            differences = check(work / SQLITE_STORE, [work]).differences
        return Checked(unpacked, verdicts, unverified, unreadable, differences)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def restore(
    archive: Path, to: Path, limits: Limits = BOUNDS, database: str | None = None
) -> Restored:
    """The season of `archive` in the new folder `to` (absent, or empty). A PostgreSQL
    season's records name `database`, the URL its dump is to be loaded into, when given."""
    if to.is_symlink() or (to.exists() and not to.is_dir()):
        raise ArchiveError(f"{to} is not a folder: give a new folder to restore into")
    if to.is_dir() and any(to.iterdir()):
        raise ArchiveError(f"{to} is not empty: a season is restored into a new folder")
    if not to.parent.is_dir():
        raise ArchiveError(f"the folder {to.parent} does not exist")
    staging = Path(tempfile.mkdtemp(prefix=f".{to.name}.restoring-", dir=to.parent))
    try:
        unpacked = unpack(archive, staging, limits)
        if unpacked.problems:
            shown = "; ".join(unpacked.problems[:5])
            more = len(unpacked.problems) - 5
            raise ArchiveError(
                f"{archive} differs from its manifest, so nothing was restored: {shown}"
                f"{f' (and {more} more)' if more > 0 else ''}; `arena league archive --check "
                f"{archive}` lists them all"
            )
        final = to.resolve()
        make_links(unpacked.manifest, staging, final)
        relocated = relocate(unpacked, staging, final, database)
        if to.is_dir():
            to.rmdir()
        os.rename(staging, to)
    except OSError as error:
        raise ArchiveError(f"cannot restore into {to}: {error.strerror or error}") from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return Restored(to, unpacked, relocated)


def relocate(
    unpacked: Unpacked, folder: Path, final: Path | None = None, database: str | None = None
) -> int:
    """Each record's paths from where the league was to `final` (default `folder`), where
    the restored season is to lie, and a PostgreSQL league's URL to `database` if given;
    how many records changed."""
    where = final or folder
    manifest = unpacked.manifest
    moves = [
        (manifest.places.get("submissions", ""), str(where / SUBMISSIONS)),
        (manifest.places.get("folder", ""), str(where)),
    ]
    if manifest.store != POSTGRES_STORE and not is_url(manifest.league):
        moves.insert(0, (manifest.league, recorded(where / SQLITE_STORE)))
    elif database is not None:
        moves.insert(0, (manifest.league, recorded(database)))
    changed = 0
    for path in _records(folder):
        data = json.loads(path.read_text(encoding="utf-8"))
        moved = _moved(data, [(old, new) for old, new in moves if old])
        if moved != data:
            aside = path.with_name(f".{path.name}.relocating")
            text = (  # each as the arena writes it (`write_info`, `lineups._make`)
                json.dumps(moved, indent=2)
                if path.name == INFO
                else json.dumps(moved, indent=1, sort_keys=True)
            )
            aside.write_text(text + "\n", encoding="utf-8")
            os.replace(aside, path)
            changed += 1
    return changed


def _records(folder: Path) -> Iterator[Path]:
    """The records that name paths: every tournament.json, every line-up's versions.json."""
    for here, folders, files in os.walk(folder):
        if Path(here) == folder / SUBMISSIONS:
            folders[:] = [f for f in folders if f == "lineups"]
        if INFO in files:
            yield Path(here) / INFO
        if PINS_FILE in files and Path(here).parent == folder / SUBMISSIONS / "lineups":
            yield Path(here) / PINS_FILE


def _moved(data: object, moves: list[tuple[str, str]]) -> object:
    if isinstance(data, str):
        for old, new in moves:
            if data == old or data.startswith(old + "/"):
                return new + data[len(old) :]
        return data
    if isinstance(data, list):
        return [_moved(item, moves) for item in data]
    if isinstance(data, dict):
        return {key: _moved(value, moves) for key, value in data.items()}
    return data


def _verified(folder: Path) -> tuple[tuple[Verdict, ...], tuple[str, ...], tuple[str, ...]]:
    """`arena verify` on each tournament folder, found where it lies (no layout assumed)."""
    verdicts: list[Verdict] = []
    unverified: list[str] = []
    unreadable: list[str] = []
    for path in sorted(_records(folder)):
        if path.name != INFO:
            continue
        try:
            info = TournamentInfo.from_json(json.loads(path.read_text(encoding="utf-8")))
            if not info.seed:
                unverified.append(f"{path.parent.name}: not finished, its seed not revealed")
                continue
            verdicts.append(verify(path.parent))
        except (VerifyError, StoreError, OSError, ValueError) as error:
            unreadable.append(f"{path.parent.name}: {error}")
    return tuple(verdicts), tuple(unverified), tuple(unreadable)
