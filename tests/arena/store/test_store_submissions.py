"""Submissions in the league store, SQLite and PostgreSQL alike: versions numbered once, the
verdict written in one transaction, the version that plays, and a server's start marking what
it found half done."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.store import LeagueStore, open_store
from arena.store.league_store import SCHEMA_VERSION
from arena.store.submissions import SubmissionState


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LeagueStore]:
    where = (
        tmp_path / "league.sqlite"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres_url")
    )
    opened = open_store(where)
    opened.set_entrant("alice", "a" * 64)
    opened.set_entrant("bob", "b" * 64)
    try:
        yield opened
    finally:
        opened.close()


def _submit(store: LeagueStore, uid: str, name: str, sha: str, at: float = 1000.0) -> None:
    store.begin_submission(uid, name, sha, size=100, files=3, received=at)


def test_accepted_submissions_are_numbered_per_entrant(store: LeagueStore) -> None:
    for uid, name, sha in [("u1", "alice", "s1"), ("u2", "bob", "s2"), ("u3", "alice", "s3")]:
        _submit(store, uid, name, sha)
        row = store.finish_submission(uid, True, "", "built", '[{"name": "x"}]')
        assert row is not None and row.state is SubmissionState.ACCEPTED
    assert [(r.name, r.version) for r in store.submissions("alice")] in (
        [("alice", 1), ("alice", 2)],
        [("alice", 2), ("alice", 1)],
    )
    assert store.version_of("alice", 2) is not None
    assert store.version_of("alice", 2).sha256 == "s3"  # type: ignore[union-attr]
    assert store.version_of("bob", 1).build_log == "built"  # type: ignore[union-attr]


def test_a_rejection_has_no_version_and_keeps_its_reason(store: LeagueStore) -> None:
    _submit(store, "u1", "alice", "s1")
    row = store.finish_submission("u1", False, "the build failed", "log", "[]")
    assert row is not None
    assert (row.state, row.version, row.reason) == (
        SubmissionState.REJECTED,
        None,
        "the build failed",
    )
    _submit(store, "u2", "alice", "s2")
    assert store.finish_submission("u2", True, "", "", "[]").version == 1  # type: ignore[union-attr]


def test_the_version_that_plays(store: LeagueStore) -> None:
    for n in (1, 2, 3):
        _submit(store, f"u{n}", "alice", f"s{n}", at=1000.0 + n)
        store.finish_submission(f"u{n}", True, "", "", "[]")
    assert store.playing_versions()["alice"].version == 3
    store.choose_version("alice", 1)
    assert store.playing_versions()["alice"].version == 1
    assert store.withdraw_version("alice", 1) is True
    assert store.withdraw_version("alice", 1) is False  # already withdrawn
    assert store.playing_versions()["alice"].version == 3  # the chosen one withdrawn
    assert store.withdraw_version("alice", 3) is True
    assert store.playing_versions()["alice"].version == 2
    store.choose_version("alice", 2)
    _submit(store, "u4", "alice", "s4", at=2000.0)
    store.finish_submission("u4", True, "", "", "[]")
    assert store.playing_versions()["alice"].version == 4  # a new version forgets the choice
    store.revoke_entrant("alice")
    assert "alice" not in store.playing_versions()  # a revoked entrant plays nothing


def test_a_start_marks_what_was_building_as_interrupted(store: LeagueStore) -> None:
    _submit(store, "u1", "alice", "s1")
    store.finish_submission("u1", True, "", "", "[]")
    _submit(store, "u2", "alice", "s2")
    marked = store.interrupt_submissions("the server stopped")
    assert [r.uid for r in marked] == ["u2"]
    row = store.submission("u2")
    assert row is not None and row.state is SubmissionState.INTERRUPTED
    assert row.reason == "the server stopped"
    # The build that was going on can no longer claim it: its verdict is not written.
    assert store.finish_submission("u2", True, "", "", "[]") is None
    assert store.playing_versions()["alice"].version == 1


def test_the_quota_counts_submissions_since_a_time(store: LeagueStore) -> None:
    for n, at in enumerate((100.0, 200.0, 300.0)):
        _submit(store, f"u{n}", "alice", f"s{n}", at=at)
    assert store.submitted_since("alice", 150.0) == 2
    assert store.submitted_since("bob", 0.0) == 0


def test_a_version_2_store_is_migrated(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "league.sqlite"
    db = sqlite3.connect(path)
    from arena.store.league_store import SCHEMA

    for step in SCHEMA[:2]:
        for sql in step:
            db.execute(sql)
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO schema_version (version) VALUES (2)")
    db.commit()
    db.close()
    store = open_store(path)
    try:
        assert store.submissions() == []
    finally:
        store.close()
    assert sqlite3.connect(path).execute("SELECT version FROM schema_version").fetchall() == [
        (SCHEMA_VERSION,)
    ]
