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
from arena.bots.manifest import MANIFEST, BotSpec, discover, hash_folder, load_kept
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

    @property
    def manifest(self) -> Path:
        """Its `bot.toml` as sent and checked: the manifest it plays by."""
        return Path(self.source) / MANIFEST

    @property
    def tree(self) -> Path:
        """The tree it was built and checked in, beside its files as sent, where it plays."""
        return Path(self.source).parent / "bot"


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


def bots_of(folder: Path) -> tuple[list[BotSpec], list[tuple[str, str]]]:
    """The bots of a bots folder, and (entry, reason) for each that cannot play: a line-up's
    seated by their pins (`seat`), any other folder's found by their manifests."""
    pins = read_pins(folder)
    return seat(folder, pins) if pins else discover(folder)


def seat(folder: Path, pins: dict[str, Pin]) -> tuple[list[BotSpec], list[tuple[str, str]]]:
    """The bots of a line-up folder, each seated by its pin, and (entry, reason) for each
    that cannot be: an entry plays under the name it is pinned to, from its own version's
    tree, by the manifest that version was checked with. Nothing a build wrote is read to
    say who a bot is, so no version can take another entrant's seat."""
    bots: list[BotSpec] = []
    problems: list[tuple[str, str]] = []
    for name, pin in sorted(pins.items()):
        entry = folder / name
        label = f"version {pin.number}"
        try:
            if entry.resolve() != pin.tree.resolve():
                raise ManifestError(f"its entry does not lead to {label}'s tree ({pin.tree})")
            spec = load_kept(entry, pin.manifest)
        except (ManifestError, OSError) as error:
            problems.append((name, f"{label} cannot play: {error}"))
            continue
        if spec.name != name:
            problems.append(
                (
                    name,
                    f"{label}'s {MANIFEST} names {spec.name!r}: refused, a version plays "
                    "under its own entrant's name alone",
                )
            )
            continue
        bots.append(spec)
    return bots, problems


def pin_problems(name: str, pin: Pin, played: str | None, files_sha256: str | None) -> list[str]:
    """What is wrong with one pinned bot now: its seat not its own (the tree it played from
    not its version's, or its manifest as sent naming another entrant), its copy as sent no
    longer hashing to the pin, or the tree it played from (`played`) no longer to the
    tournament's files hash."""
    label = f"{name} (version {pin.number})"
    problems = _seat_problems(label, name, pin, played)
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


def _seat_problems(label: str, name: str, pin: Pin, played: str | None) -> list[str]:
    """Whether the seat `name` held was its own: played from its version's tree, by a
    manifest that names it."""
    problems = []
    if played is not None and Path(played).resolve() != pin.tree.resolve():
        problems.append(
            f"{label}: it played from {Path(played).resolve()}, not from its own version's "
            f"tree {pin.tree}: another version took its seat"
        )
    try:
        said = load_kept(pin.tree, pin.manifest, hashed=False).name
    except (ManifestError, OSError) as error:
        problems.append(f"{label}: its {MANIFEST} as sent cannot be read: {error}")
    else:
        if said != name:
            problems.append(f"{label}: its {MANIFEST} as sent names {said!r}, not {name!r}")
    return problems
