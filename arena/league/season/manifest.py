"""What a season archive holds, said in its last member: every other member's SHA-256.

    season/league.sqlite          the league store, as it was at one moment (or
    season/league.pgdump          a PostgreSQL league's pg_dump, custom format)
    season/ladder.secret          the ladder's secret, when there is one
    season/submissions/versions/<sha256>/...   each version the store names
    season/submissions/lineups/<id>/versions.json
    season/...                    the results folder as it lay (tournaments, ladder rounds)
    season/manifest.json          this: the members' hashes, the links of the line-ups,
                                  what was skipped, and where the league was

The layout is the restored folder's: a league's own folder, its store, its
results and its submissions side by side, as `arena serve` lays them out by
default. The manifest is written last, once every member's hash is known, so
the archive is written in one pass; it names the places the league was, so
that a restore can say where each path of its records now lies
(`arena.league.season.restore`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from arena.errors import ArenaError
from arena.records import Json

FORMAT = "perudo-arena-season"
VERSION = 1
TOP = "season"
MANIFEST = "manifest.json"
SQLITE_STORE = "league.sqlite"
POSTGRES_STORE = "league.pgdump"
SECRET = "ladder.secret"
SUBMISSIONS = "submissions"
RESERVED = frozenset({MANIFEST, SQLITE_STORE, POSTGRES_STORE, SECRET, SUBMISSIONS})
"""Names at the top of the archive that are its own, never a results folder's."""


class ArchiveError(ArenaError):
    """A season archive that cannot be written, read, checked or restored as asked."""


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    """Its path under `season/`."""
    sha256: str
    size: int


@dataclass(frozen=True, slots=True)
class Link:
    """A line-up's entry: a link the arena made to a version's built tree, kept as a record
    (never as a link in the archive) and made again, inside the restored folder, on restore."""

    name: str
    """Its path under `season/`."""
    target: str
    """A path from the top of the restored folder ("/submissions/versions/<sha256>/bot",
    a line-up's, made absolute again), or a relative one inside its own version's folder
    (a link a build made, kept as its text, which the version's hash covers)."""


@dataclass(frozen=True, slots=True)
class Manifest:
    made: float
    league: str
    """The store as its tournaments recorded it (a file's path, or a URL without password)."""
    places: dict[str, str]
    """Where each part lay on the archived machine: "folder" (the league's folder, where
    the results were), "submissions"; a restore rewrites these paths in the records."""
    store: str
    """SQLITE_STORE or POSTGRES_STORE."""
    members: tuple[Member, ...]
    links: tuple[Link, ...]
    skipped: tuple[str, ...]
    """What was not archived, and why (a link, a named pipe, a version's missing folder)."""

    def to_json(self) -> Json:
        return {
            "format": FORMAT,
            "version": VERSION,
            "made": self.made,
            "league": self.league,
            "places": self.places,
            "store": self.store,
            "members": [[m.name, m.sha256, m.size] for m in self.members],
            "links": [[link.name, link.target] for link in self.links],
            "skipped": list(self.skipped),
        }

    def encoded(self) -> bytes:
        return json.dumps(self.to_json(), indent=0, separators=(",", ":")).encode()

    @classmethod
    def from_json(cls, data: Any) -> Manifest:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ArchiveError("its manifest is not a season archive's")
        if data.get("version") != VERSION:
            raise ArchiveError(
                f"it is a season archive of format version {data.get('version')}, which this "
                f"arena (version {VERSION}) does not read"
            )
        try:
            return cls(
                float(data["made"]),
                str(data["league"]),
                {str(k): str(v) for k, v in data["places"].items()},
                str(data["store"]),
                tuple(Member(str(n), str(h), int(s)) for n, h, s in data["members"]),
                tuple(Link(str(n), str(t)) for n, t in data["links"]),
                tuple(str(s) for s in data["skipped"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            raise ArchiveError(f"its manifest is damaged ({error!r})") from None
