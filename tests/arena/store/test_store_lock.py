"""One league server per league: the folder's flock and the PostgreSQL store's advisory lock,
each refusing a second holder with the first's words, and each ending with its holder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.store.lock import LOCK_FILE, LeagueBusyError, ServerLock


def test_a_second_lock_on_a_folder_is_refused_with_the_first_ones_address(
    tmp_path: Path,
) -> None:
    first = ServerLock([tmp_path / "league", tmp_path / "results"], tmp_path / "x.sqlite")
    first.take()
    first.announce("bots 127.0.0.1:4000, admin 127.0.0.1:4001")
    try:
        # The same results folder under another league: refused all the same.
        second = ServerLock([tmp_path / "other", tmp_path / "results"], tmp_path / "y.sqlite")
        with pytest.raises(LeagueBusyError, match=r"bots 127\.0\.0\.1:4000, admin") as refused:
            second.take()
        assert str(tmp_path / "results") in str(refused.value)
        # It holds nothing of what it took before the refusal: its own folder is free.
        third = ServerLock([tmp_path / "other"], tmp_path / "y.sqlite")
        third.take()
        third.release()
    finally:
        first.release()
    again = ServerLock([tmp_path / "league", tmp_path / "results"], tmp_path / "x.sqlite")
    again.take()
    again.release()


def test_the_lock_of_a_killed_holder_is_free_at_once(tmp_path: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pathlib import Path\n"
            "from arena.store.lock import ServerLock\n"
            f"ServerLock([Path({str(tmp_path)!r})], 'l.sqlite').take()\n"
            "print('held', flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(LeagueBusyError, match=rf"pid {holder.pid} "):
            ServerLock([tmp_path], "l.sqlite").take()
    finally:
        holder.kill()
        holder.wait(timeout=10)
    assert (tmp_path / LOCK_FILE).is_file()  # left behind, and believed only while locked
    lock = ServerLock([tmp_path], "l.sqlite")
    lock.take()
    lock.release()


def test_a_second_lock_on_a_postgres_store_is_refused_from_another_folder(
    tmp_path: Path, postgres_url: str
) -> None:
    first = ServerLock([tmp_path / "one"], postgres_url)
    first.take()
    first.announce("bots 0.0.0.0:4000, admin 127.0.0.1:4001")
    try:
        second = ServerLock([tmp_path / "two"], postgres_url)
        with pytest.raises(LeagueBusyError) as refused:
            second.take()
        said = str(refused.value)
        assert "arena serve bots 0.0.0.0:4000, admin 127.0.0.1:4001" in said
        assert "connected from 127.0.0.1" in said
        assert "s3cret" not in said  # the URL's password is never shown
        # Refused, it let go of its folder too.
        free = ServerLock([tmp_path / "two"], "x.sqlite")
        free.take()
        free.release()
    finally:
        first.release()
    again = ServerLock([tmp_path / "three"], postgres_url)
    again.take()
    again.release()
