"""`arena league archive FILE`, `arena league archive --check FILE` and `arena league restore
FILE --to DIR`: a season in one file, checked, and back in a folder of its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from arena.store import is_url, shown
from arena.text import printable
from arena.tournament.config import TournamentError

if TYPE_CHECKING:
    import argparse

    from rich.console import Console


def cmd_archive(args: argparse.Namespace, console: Console) -> int:
    from arena.league.season.archive import archive

    if args.check is not None:
        return _check(args.check, console)
    if not args.file:
        raise TournamentError(
            "arena league archive needs the file to write (FILE), or --check FILE to check one"
        )
    own = Path("results") if is_url(args.league) else Path(args.league).parent
    results = args.results or [own]
    if len(results) > 1:
        raise TournamentError("arena league archive takes one results folder: the server's --out")
    done = archive(args.league, results[0], Path(args.file))
    say = _sayer(console)
    for skipped in done.skipped:
        say(f"  ! skipped {printable(skipped)}", "yellow")
    games = f"{done.games} games in the store, " if done.games is not None else ""
    say(
        f"Archived the season to {done.path}: {games}{done.members} members, "
        f"{done.read / 1024 / 1024:.1f} MiB in {done.bytes / 1024 / 1024:.1f} MiB"
        f"{f', {len(done.skipped)} skipped (above)' if done.skipped else ''}. It holds the "
        f"ladder's secret and the entrants' token hashes: keep it private. Its manifest's "
        f"SHA-256 is {done.manifest_sha256}: keep it apart, and `arena league archive --check "
        f"{done.path}` shows the archive is the one it names."
    )
    return 0


def _check(path: Path, console: Console) -> int:
    from arena.league.season.restore import check_archive

    checked = check_archive(path)
    say = _sayer(console)
    unpacked = checked.unpacked
    for problem in unpacked.problems:
        say(f"  FAIL {printable(problem)}", "red")
    for verdict in checked.verdicts:
        if not verdict.ok:
            bad = [g for g in verdict.games if g.problem is not None]
            shown = "; ".join(f"{g.game}: {g.problem}" for g in bad[:3])
            said = "; ".join(verdict.problems[:3])
            commitment = "" if verdict.commitment_ok else "the seed is not the one committed to; "
            say(f"  FAIL {verdict.tournament}: {commitment}{shown}{said}", "red")
    for why in checked.unreadable:
        say(f"  FAIL {printable(why)}", "red")
    for difference in checked.differences:
        say(f"  FAIL the store against its folders: {difference}", "red")
    for note in checked.unverified:
        say(f"  - {printable(note)}")
    games = sum(len(v.games) for v in checked.verdicts)
    summary = (
        f"its manifest's SHA-256 {unpacked.manifest_sha256}, "
        f"{unpacked.members} members ({unpacked.bytes / 1024 / 1024:.1f} MiB), "
        f"{len(checked.verdicts)} tournaments verified ({games} games)"
    )
    if checked.ok:
        say(
            f"{path} is whole: {summary}, every member as its manifest hashed it, every deal the "
            "seed's, and the store agrees with its folders."
        )
        return 0
    say(f"{path} is not sound: {summary}; see FAIL above.", "red")
    return 1


def cmd_restore_archive(args: argparse.Namespace, console: Console) -> int:
    from arena.league.season.restore import restore

    database = str(args.league) if is_url(args.league) else None
    restored = restore(Path(args.source), args.to, database=database)
    say = _sayer(console)
    store = restored.store
    if restored.unpacked.manifest.store.endswith(".pgdump"):
        url = shown(database) if database else "URL"
        named = (
            ""
            if database
            else " (give that URL with --league when restoring, and its records name it)"
        )
        then = (
            f"Its store is a PostgreSQL dump: load it into a new database with `pg_restore "
            f"--no-owner --dbname {url} {store}`{named}, then serve with --league {url} --out "
            f"{restored.folder}."
        )
    else:
        then = (
            f"`arena league check --league {store}` compares it with its folders; serve it with "
            f"`arena serve --league {store}`."
        )
    say(
        f"Restored {args.source} into {restored.folder}: {restored.unpacked.members} "
        f"members, every one as its manifest hashed it; {restored.relocated} records now "
        f"name their new place. {then}"
    )
    return 0


def _sayer(console: Console) -> Callable[..., None]:
    def say(text: str, style: str | None = None) -> None:
        console.print(text, highlight=False, markup=False, soft_wrap=True, style=style)

    return say
