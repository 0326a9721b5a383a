"""Submitted versions in a tournament: which files of each bot played, and are they still so.

A league server plays its entrants' submitted bots from a line-up folder it
makes for the night (`arena.submissions.lineups`): one entry per entrant,
leading to the tree its version was built and checked in, and `versions.json`
naming each entrant's version, the hash of its files as sent and where that
untouched copy is kept. A tournament started on such a folder records each
bot's pin in `tournament.json` (`Entrant.version`), and `arena verify` checks
that the copy as sent still hashes to the pin, and the tree it played from to
the files hash the tournament recorded: a version changed after the night is
found out.

The hash of a submission's files (`tree_sha256`) covers every file, build
outputs included, unlike the files hash the results keep for any bot
(`arena.bots.manifest.hash_folder`): a version is exactly what its author sent.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.bots.botfiles import Kind, ManifestError, read_regular, walk
from arena.bots.manifest import hash_folder
from arena.records import Json

PINS_FILE = "versions.json"
_PINS_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Pin:
    """One entrant's submitted version, as a night plays it."""

    number: int
    sha256: str
    """The hash of its files as sent (`tree_sha256`)."""
    source: str
    """Where the untouched copy as sent is kept."""

    def to_json(self) -> Json:
        return {"number": self.number, "sha256": self.sha256, "source": self.source}

    @classmethod
    def from_json(cls, data: Any) -> Pin:
        return cls(int(data["number"]), str(data["sha256"]), str(data["source"]))


def tree_sha256(folder: Path) -> str:
    """A SHA-256 over every file of a tree, each by its path and its contents' SHA-256 (a
    link by the path it holds), walked as a bot's folder is: never following a link."""
    digest = hashlib.sha256()
    for entry in walk(folder, read=True):
        digest.update(os.fsencode(entry.relative) + b"\0")
        if entry.kind is Kind.LINK:
            digest.update(hashlib.sha256(b"symlink\0" + os.fsencode(entry.target)).digest())
        else:
            digest.update(entry.sha256)
    return digest.hexdigest()


def read_pins(bots_dir: Path) -> dict[str, Pin]:
    """The versions a line-up folder pins, by entrant; none for any other bots folder."""
    try:
        raw = read_regular(bots_dir / PINS_FILE, _PINS_BYTES)
    except ManifestError:
        return {}
    if raw is None:
        return {}
    try:
        data = json.loads(raw)
        return {str(name): Pin.from_json(pin) for name, pin in data.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return {}


def pin_problems(name: str, pin: Pin, played: str | None, files_sha256: str | None) -> list[str]:
    """What is wrong with one pinned bot now: its copy as sent no longer hashing to the pin,
    or the tree it played from (`played`) no longer to the tournament's files hash."""
    problems = []
    label = f"{name} (version {pin.number})"
    try:
        sent = tree_sha256(Path(pin.source))
    except ManifestError as error:
        problems.append(f"{label}: its files as sent cannot be read: {error}")
    else:
        if sent != pin.sha256:
            problems.append(
                f"{label}: its files as sent ({pin.source}) hash to {sent[:12]}, not to "
                f"{pin.sha256[:12]} as when it played: they were changed since"
            )
    if played is not None and files_sha256 is not None:
        try:
            now = hash_folder(Path(played))
        except ManifestError as error:
            problems.append(f"{label}: the tree it played from cannot be read: {error}")
        else:
            if now != files_sha256:
                problems.append(
                    f"{label}: the tree it played from ({played}) hashes to {now[:12]}, not "
                    f"to {files_sha256[:12]} as when it played: it was changed since"
                )
    return problems
