"""The bots entrants submit, as the league store keeps them: one row per submission.

A row is written once the submission's files are on disk and its build
begins (`building`), and finished in one transaction with its verdict: an
accepted one is given its version number (the entrant's next) there and
then, so a version number names one set of files for good. A row still
`building` when a server starts is one its predecessor was killed during:
it is marked `interrupted` (nothing of it is kept but the row), never taken
for accepted. The files themselves (the tree as sent, and the tree it was
built and checked in) live in the submissions folder beside the store
(`arena.submissions.folder`); the store holds what a person reads: who sent
what and when, its size, its build log, its check report and its verdict.

The version that plays is the one its entrant chose (`choose_version`), else
its latest accepted one; a version the organiser withdrew never plays.
"""

from __future__ import annotations

import abc
import time
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from arena.store.rows import Row, Statement

SUBMISSION_TABLES = (
    "CREATE TABLE IF NOT EXISTS submissions ("
    " uid TEXT PRIMARY KEY, name TEXT NOT NULL, sha256 TEXT NOT NULL,"
    " received DOUBLE PRECISION NOT NULL, size INTEGER NOT NULL, files INTEGER NOT NULL,"
    " state TEXT NOT NULL, version INTEGER, reason TEXT NOT NULL DEFAULT '',"
    " build_log TEXT NOT NULL DEFAULT '', check_report TEXT NOT NULL DEFAULT '[]',"
    " finished DOUBLE PRECISION, withdrawn DOUBLE PRECISION, UNIQUE (name, version))",
    "CREATE INDEX IF NOT EXISTS submissions_by_name ON submissions (name, received)",
    "CREATE TABLE IF NOT EXISTS chosen_versions ( name TEXT PRIMARY KEY, version INTEGER NOT NULL)",
)
"""The schema's step that adds submissions (see `arena.store.league_store.SCHEMA`)."""

_COLUMNS = (
    "uid, name, sha256, received, size, files, state, version, reason, build_log, "
    "check_report, finished, withdrawn"
)


class SubmissionState(StrEnum):
    BUILDING = "building"
    """Its files are kept and its build or check is under way."""
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    INTERRUPTED = "interrupted"
    """The server stopped during its build or check: nothing of it is kept but the row."""


@dataclass(frozen=True, slots=True)
class SubmissionRow:
    uid: str
    name: str
    sha256: str
    """The hash of its files as sent (`arena.tournament.versions.tree_sha256`)."""
    received: float
    size: int
    """Bytes of its archive."""
    files: int
    state: SubmissionState
    version: int | None
    """1, 2, ... for its entrant's accepted versions; None for any other."""
    reason: str = ""
    """Why it was refused or interrupted."""
    build_log: str = ""
    check_report: str = "[]"
    """The checks as JSON (`arena.submissions.report`)."""
    finished: float | None = None
    withdrawn: float | None = None
    """When the organiser withdrew it, if it was."""

    @property
    def playable(self) -> bool:
        return self.state is SubmissionState.ACCEPTED and self.withdrawn is None

    @classmethod
    def of(cls, row: Row) -> SubmissionRow:
        uid, name, sha, received, size, files, state, version, reason, log, report, done, out = row
        return cls(
            str(uid),
            str(name),
            str(sha),
            float(received),
            int(size),
            int(files),
            SubmissionState(state),
            None if version is None else int(version),
            str(reason),
            str(log),
            str(report),
            None if done is None else float(done),
            None if out is None else float(out),
        )


class SubmissionRecords(abc.ABC):
    """The store's submissions; mixed into `LeagueStore`, whose queries run them."""

    @abc.abstractmethod
    def _read(self, doing: str, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...

    @abc.abstractmethod
    def _write(self, doing: str, statements: Sequence[Statement]) -> list[int]: ...

    @abc.abstractmethod
    def entrants(self) -> dict[str, str]: ...

    def begin_submission(
        self, uid: str, name: str, sha256: str, size: int, files: int, received: float
    ) -> None:
        """Record a submission whose files are kept and whose build begins."""
        self._write(
            "recording a submission",
            [
                (
                    f"INSERT INTO submissions ({_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, NULL, '', '', '[]', NULL, NULL)",
                    (uid, name, sha256, received, size, files, SubmissionState.BUILDING.value),
                )
            ],
        )

    def finish_submission(
        self, uid: str, accepted: bool, reason: str, build_log: str, check_report: str
    ) -> SubmissionRow | None:
        """Its verdict, in one transaction: an accepted one becomes its entrant's next version
        (and the one that plays: a choice made before is forgotten). None when the row is no
        longer building (another server's start took it for interrupted)."""
        now = time.time()
        if accepted:
            name = self._name_of(uid)
            statements: list[Statement] = [
                (
                    "UPDATE submissions SET state = ?, reason = '', build_log = ?, "
                    "check_report = ?, finished = ?, version = (SELECT COALESCE(MAX(version), 0)"
                    " + 1 FROM submissions WHERE name = ?) WHERE uid = ? AND state = ?",
                    (
                        SubmissionState.ACCEPTED.value,
                        build_log,
                        check_report,
                        now,
                        name,
                        uid,
                        SubmissionState.BUILDING.value,
                    ),
                ),
                ("DELETE FROM chosen_versions WHERE name = ?", (name,)),
            ]
        else:
            statements = [
                (
                    "UPDATE submissions SET state = ?, reason = ?, build_log = ?, "
                    "check_report = ?, finished = ? WHERE uid = ? AND state = ?",
                    (
                        SubmissionState.REJECTED.value,
                        reason,
                        build_log,
                        check_report,
                        now,
                        uid,
                        SubmissionState.BUILDING.value,
                    ),
                )
            ]
        changed = self._write("recording a submission's verdict", statements)[0]
        return self.submission(uid) if changed == 1 else None

    def _name_of(self, uid: str) -> str:
        rows = self._read(
            "reading a submission", "SELECT name FROM submissions WHERE uid = ?", (uid,)
        )
        return str(rows[0][0]) if rows else ""

    def interrupt_submissions(self, reason: str) -> list[SubmissionRow]:
        """Mark every submission still building as interrupted (a server's start: whoever
        built it is gone); the rows it marked."""
        building = [r for r in self.submissions() if r.state is SubmissionState.BUILDING]
        if building:
            self._write(
                "marking interrupted submissions",
                [
                    (
                        "UPDATE submissions SET state = ?, reason = ?, finished = ? "
                        "WHERE uid = ? AND state = ?",
                        (
                            SubmissionState.INTERRUPTED.value,
                            reason,
                            time.time(),
                            row.uid,
                            SubmissionState.BUILDING.value,
                        ),
                    )
                    for row in building
                ],
            )
        return building

    def submission(self, uid: str) -> SubmissionRow | None:
        rows = self._read(
            "reading a submission", f"SELECT {_COLUMNS} FROM submissions WHERE uid = ?", (uid,)
        )
        return SubmissionRow.of(rows[0]) if rows else None

    def submissions(self, name: str | None = None) -> list[SubmissionRow]:
        """Every submission, or one entrant's, newest first."""
        where, params = ("WHERE name = ? ", (name,)) if name is not None else ("", ())
        rows = self._read(
            "reading submissions",
            f"SELECT {_COLUMNS} FROM submissions {where}ORDER BY received DESC, uid",
            params,
        )
        return [SubmissionRow.of(row) for row in rows]

    def submitted_since(self, name: str, since: float) -> int:
        """How many submissions of `name` reached a build since `since` (its quota)."""
        rows = self._read(
            "counting submissions",
            "SELECT COUNT(*) FROM submissions WHERE name = ? AND received >= ?",
            (name, since),
        )
        return int(rows[0][0])

    def version_of(self, name: str, version: int) -> SubmissionRow | None:
        rows = self._read(
            "reading a version",
            f"SELECT {_COLUMNS} FROM submissions WHERE name = ? AND version = ?",
            (name, version),
        )
        return SubmissionRow.of(rows[0]) if rows else None

    def accepted_with(self, name: str, sha256: str) -> SubmissionRow | None:
        """The accepted version of `name` with these very files, if there is one."""
        rows = self._read(
            "reading a version",
            f"SELECT {_COLUMNS} FROM submissions WHERE name = ? AND sha256 = ? AND state = ?",
            (name, sha256, SubmissionState.ACCEPTED.value),
        )
        return SubmissionRow.of(rows[0]) if rows else None

    def withdraw_version(self, name: str, version: int) -> bool:
        """Withdraw an accepted version; False when there is no such version playable."""
        (changed,) = self._write(
            "withdrawing a version",
            [
                (
                    "UPDATE submissions SET withdrawn = ? WHERE name = ? AND version = ? "
                    "AND state = ? AND withdrawn IS NULL",
                    (time.time(), name, version, SubmissionState.ACCEPTED.value),
                )
            ],
        )
        return changed == 1

    def choose_version(self, name: str, version: int) -> None:
        """Play this version of `name` from now on (until it has a newer accepted one)."""
        self._write(
            "choosing a version",
            [
                (
                    "INSERT INTO chosen_versions (name, version) VALUES (?, ?) "
                    "ON CONFLICT (name) DO UPDATE SET version = excluded.version",
                    (name, version),
                )
            ],
        )

    def playing_versions(self, names: Sequence[str] | None = None) -> dict[str, SubmissionRow]:
        """The version of each entrant with an active token that plays next: the one it chose
        if it is still playable, else its latest playable one."""
        active = set(self.entrants())
        wanted = active if names is None else active & set(names)
        chosen = {
            str(n): int(v)
            for n, v in self._read(
                "reading chosen versions", "SELECT name, version FROM chosen_versions"
            )
        }
        rows = self._read(
            "reading versions",
            f"SELECT {_COLUMNS} FROM submissions WHERE state = ? AND withdrawn IS NULL "
            "ORDER BY version",
            (SubmissionState.ACCEPTED.value,),
        )
        playing: dict[str, SubmissionRow] = {}
        for row in map(SubmissionRow.of, rows):
            if row.name not in wanted:
                continue
            held = playing.get(row.name)
            if held is None or held.version != chosen.get(row.name):
                playing[row.name] = row  # the latest so far, unless the chosen one is held
        return playing
