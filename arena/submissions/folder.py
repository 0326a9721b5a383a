"""The submissions folder beside the league store: each accepted version's files, kept whole.

    submissions/
        tmp/                    uploads, unpacking and checks in flight: emptied at every start
        quarantine/<sha256>-<time>/  a version folder the league store did not name at a start
        versions/<sha256>/
            source/             the bot's files as sent, never built nor run: what the hash names
            bot/                a copy, where it was built and checked, and where it plays
            build.log           its build's output
            check.log           its own output during the check
            accepted            written once a store accepted it (`mark_accepted`)
        lineups/<id>/           what a tournament plays (`arena.submissions.lineups`)

A version is stored once, by the hash of its files as sent. Its files reach
`versions/` whole or not at all: unpacked in `tmp/`, synced to disk, then
renamed into place in one step; the league store's row is written after that,
and its verdict last of all. So whatever a server was killed during, its next
start finds in `tmp/`, or in a version folder whose row was never accepted (a
build in flight, marked interrupted, or refused), only what it can discard
(`recover`), and every accepted version whole.

A version folder the store does not name at all is another matter: the store
was deleted, or an older backup restored, and the folder may be the only copy
of an entrant's accepted bot. It is never removed, only moved aside into
`quarantine/` and said, for the organiser to submit again or remove. So is one
the store knows only as a build in flight but that bears the `accepted` mark: a
backup taken during its build, restored after it was accepted.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from arena.store import is_url
from arena.store.submissions import SubmissionRow, SubmissionState


def submissions_folder(league: Path | str, out: Path) -> Path:
    """Beside an SQLite league; in the results folder `out` for a database server's."""
    return out / "submissions" if is_url(league) else Path(league).with_name("submissions")


ACCEPTED_MARK = "accepted"


class SubmissionsFolder:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.tmp = root / "tmp"
        self.versions = root / "versions"
        self.lineups = root / "lineups"
        self.quarantine = root / "quarantine"

    def make(self) -> None:
        for folder in (self.tmp, self.versions, self.lineups):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)

    def version(self, sha256: str) -> Path:
        return self.versions / sha256

    def source(self, sha256: str) -> Path:
        return self.version(sha256) / "source"

    def bot(self, sha256: str) -> Path:
        return self.version(sha256) / "bot"

    def staging(self) -> Path:
        """A new folder in `tmp/` for one upload: removed by the caller, or at the next start."""
        return Path(tempfile.mkdtemp(prefix="upload-", dir=self.tmp))

    def keep(self, tree: Path, sha256: str) -> None:
        """Move an unpacked tree into place as the files of version `sha256`, synced first;
        a tree already kept under that hash is left as it is."""
        target = self.source(sha256)
        if target.is_dir():
            return
        sync_tree(tree)
        self.version(sha256).mkdir(exist_ok=True)
        os.rename(tree, target)
        _sync(self.version(sha256))
        _sync(self.versions)

    def prepare_build(self, sha256: str) -> Path:
        """A fresh copy of the files as sent, to build and check in; its path."""
        bot = self.bot(sha256)
        shutil.rmtree(bot, ignore_errors=True)
        shutil.copytree(self.source(sha256), bot, symlinks=True)
        return bot

    def mark_accepted(self, sha256: str) -> None:
        """Mark a version folder as accepted (after its store said so), on disk."""
        mark = self.version(sha256) / ACCEPTED_MARK
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        _sync(self.version(sha256))

    def discard(self, sha256: str) -> None:
        shutil.rmtree(self.version(sha256), ignore_errors=True)

    def recover(self, rows: Iterable[SubmissionRow]) -> list[str]:
        """At a start, given every submission row of the store: empty `tmp/`, discard each
        version folder the store knows as never accepted (a build a killed server left, or a
        refusal) unless it bears the accepted mark, move aside each other one it does not
        name as accepted, and say which accepted versions are not whole on disk. The lines
        to say are returned."""
        self.make()
        for entry in self.tmp.iterdir():
            _remove(entry)
        rows = list(rows)
        accepted = {r.sha256 for r in rows if r.state is SubmissionState.ACCEPTED}
        known = {r.sha256 for r in rows}
        said = []
        for entry in sorted(self.versions.iterdir()):
            if entry.name in accepted:
                continue
            if entry.name in known and not (entry / ACCEPTED_MARK).exists():
                _remove(entry)
            else:
                said.append(self._set_aside(entry))
        said += [
            f"version {sha[:12]} is accepted but its files are missing from {self.version(sha)}"
            for sha in sorted(accepted)
            if not (self.source(sha).is_dir() and self.bot(sha).is_dir())
        ]
        return said

    def _set_aside(self, entry: Path) -> str:
        """Move a version folder the store does not name into `quarantine/`; what to say."""
        self.quarantine.mkdir(mode=0o700, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = self.quarantine / f"{entry.name}-{stamp}"
        number = 1
        while aside.exists():
            number += 1
            aside = self.quarantine / f"{entry.name}-{stamp}-{number}"
        os.rename(entry, aside)
        _sync(self.quarantine)
        _sync(self.versions)
        return (
            f"{self.versions / entry.name} is no accepted version in the league store "
            f"(deleted, or an older backup restored?): kept aside as {aside}, never deleted. "
            f"To play it again, its author submits {aside / 'source'} again (arena submit); "
            f"else remove that folder"
        )


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def sync_tree(root: Path) -> None:
    """Every file and folder of a tree the server made itself (no links) on disk."""
    for folder, _, files in os.walk(root):
        for name in files:
            fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NOFOLLOW)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        _sync(Path(folder))


def _sync(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
