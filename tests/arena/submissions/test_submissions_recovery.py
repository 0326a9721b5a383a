"""A server's start after it was killed: what was half done is discarded or marked, every
accepted version kept whole; a version folder its store does not name is kept aside, never
removed."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

from archives import bot, file, tar_gz
from submit_harness import desk

from arena.store import open_store
from arena.store.backup import backup, restore
from arena.store.submissions import SubmissionState
from arena.submissions.archive import Packed
from arena.submissions.folder import SubmissionsFolder
from arena.submissions.versions import INTERRUPTED
from arena.tournament.versions import tree_sha256


def test_a_start_discards_what_a_killed_server_left_and_keeps_what_it_accepted(
    tmp_path: Path,
) -> None:
    async def body() -> str:
        async with desk(tmp_path) as d:
            verdict = await d.send(Packed("alice", tar_gz(bot()), 2, ()), d.register("alice"))
            assert verdict.accepted
            return verdict.sha256

    accepted = asyncio.run(body())
    # What a SIGKILL leaves at each step: an upload being unpacked in tmp/, files moved into
    # versions/ before their row was written (kept aside: no row names them), a row whose
    # build was under way (discarded: the store knows it was never accepted).
    files = SubmissionsFolder(tmp_path / "league" / "submissions")
    (files.tmp / "upload-1234" / "tree").mkdir(parents=True)
    (files.tmp / "upload-1234" / "archive.tar.gz").write_bytes(b"half")
    files.source("b" * 64).mkdir(parents=True)
    files.source("c" * 64).mkdir(parents=True)
    files.bot("c" * 64).mkdir(parents=True)
    store = open_store(tmp_path / "league" / "league.sqlite")
    store.begin_submission("u-killed", "alice", "c" * 64, 10, 2, 1.0)
    store.close()

    async def again() -> None:
        async with desk(tmp_path) as d:
            store, files = d.server.store, d.files
            killed = store.submission("u-killed")
            assert killed is not None and killed.state is SubmissionState.INTERRUPTED
            assert killed.reason == INTERRUPTED
            assert sorted(p.name for p in files.versions.iterdir()) == [accepted]
            assert [p.name[:64] for p in files.quarantine.iterdir()] == ["b" * 64]
            assert list(files.tmp.iterdir()) == []
            assert tree_sha256(files.source(accepted)) == accepted
            assert store.playing_versions()["alice"].version == 1
            assert any("was interrupted" in line for line in d.said)
            # And the author can send again at once.
            token = d.register("alice")
            more = tar_gz(bot(file("x.py")))
            assert (await d.send(Packed("alice", more, 3, ()), token)).version == 2

    asyncio.run(again())


def test_a_version_accepted_after_the_backup_restored_is_kept_aside_and_said(
    tmp_path: Path,
) -> None:
    league = tmp_path / "league" / "league.sqlite"

    async def season() -> tuple[str, str]:
        async with desk(tmp_path) as d:
            token = d.register("alice")
            first = await d.send(Packed("alice", tar_gz(bot()), 2, ()), token)
            assert first.accepted
            backup(league, tmp_path / "backup.sqlite")
            later = await d.send(Packed("alice", tar_gz(bot(file("x.py"))), 3, ()), token)
            assert later.version == 2
            return first.sha256, later.sha256

    first, later = asyncio.run(season())
    restore(tmp_path / "backup.sqlite", league)  # the documented way back: an older store

    async def again() -> None:
        async with desk(tmp_path) as d:
            assert sorted(p.name for p in d.files.versions.iterdir()) == [first]
            (aside,) = d.files.quarantine.iterdir()
            assert aside.name.startswith(later + "-")
            assert tree_sha256(aside / "source") == later  # whole, never deleted
            (said,) = [line for line in d.said if "kept aside" in line]
            assert str(aside) in said and "arena submit" in said

    asyncio.run(again())


def test_a_version_building_in_the_restored_store_but_accepted_since_is_kept_aside(
    tmp_path: Path,
) -> None:
    """A backup taken during a build, restored after the version was accepted: its row says
    `building` again, as a killed server's would, but its folder bears the accepted mark."""
    league = tmp_path / "league" / "league.sqlite"

    async def season() -> str:
        async with desk(tmp_path) as d:
            verdict = await d.send(Packed("alice", tar_gz(bot()), 2, ()), d.register("alice"))
            assert verdict.accepted
            return verdict.sha256

    sha = asyncio.run(season())
    db = sqlite3.connect(league)  # the row as the backup holds it: its build under way
    with db:
        db.execute("UPDATE submissions SET state = 'building', version = NULL")
    db.execute("DELETE FROM chosen_versions")
    db.commit()
    db.close()

    async def again() -> None:
        async with desk(tmp_path) as d:
            assert list(d.files.versions.iterdir()) == []
            (aside,) = d.files.quarantine.iterdir()
            assert tree_sha256(aside / "source") == sha
            assert any(str(aside) in line for line in d.said)

    asyncio.run(again())
