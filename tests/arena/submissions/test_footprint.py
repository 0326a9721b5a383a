"""A version's footprint on the server's disk, bounded: its built tree, and an author's
versions together; the excess a rejection with nothing kept."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from submit_harness import SAMPLES, desk

from arena.submissions.archive import pack
from arena.submissions.footprint import disk_bytes
from arena.submissions.limits import MIB, SubmissionLimits


def test_a_tree_is_measured_as_it_lies_without_following_links(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "deep" / "er").mkdir(parents=True)
    (tree / "deep" / "er" / "data").write_bytes(os.urandom(256 * 1024))
    os.link(tree / "deep" / "er" / "data", tree / "again")  # one file, two names
    outside = tmp_path / "outside"
    outside.write_bytes(os.urandom(1024 * 1024))
    os.symlink(outside, tree / "link")  # never followed
    with (tree / "sparse").open("wb") as sparse:
        sparse.truncate(1024 * 1024 * 1024)  # a GiB of holes holds no blocks
    measured = disk_bytes(tree)
    assert 256 * 1024 <= measured < 512 * 1024
    assert disk_bytes(tmp_path / "nothing") == 0


def _bot(tmp: Path, name: str, build: str) -> Path:
    bot = tmp / name
    bot.mkdir(parents=True)
    (bot / "bot.toml").write_text(f'name = "{name}"\nrun = "python bot.py"\nbuild = "sh b.sh"\n')
    (bot / "b.sh").write_text(build)
    (bot / "bot.py").write_bytes((SAMPLES / "random_bot.py").read_bytes())
    return bot


def test_a_build_that_leaves_more_than_a_version_may_keep_is_refused(tmp_path: Path) -> None:
    """The attack, scaled down: a tiny build script that leaves ballast in its folder (300
    MiB then, kept for good) is refused, and nothing of it is kept."""
    limits = SubmissionLimits(builds_at_once=2, max_built_bytes=2 * MIB)

    async def body() -> None:
        async with desk(tmp_path, limits) as d:
            bot = _bot(tmp_path, "ballast", "head -c 3000000 /dev/zero > ballast.bin\n")
            verdict = await d.send(pack(bot), d.register("ballast"))
            assert not verdict.accepted
            assert "its build left 3 MiB in its folder, more than the 2 MiB" in verdict.reason
            assert d.stored() == (1, [], [])

    asyncio.run(body())


def test_an_authors_versions_together_are_bounded(tmp_path: Path) -> None:
    limits = SubmissionLimits(builds_at_once=2, max_built_bytes=2 * MIB, max_author_bytes=3 * MIB)

    async def body() -> None:
        async with desk(tmp_path, limits) as d:
            token = d.register("hoard")
            first = _bot(tmp_path / "1", "hoard", "head -c 1500000 /dev/zero > a.bin\n")
            assert (await d.send(pack(first), token)).accepted
            second = _bot(tmp_path / "2", "hoard", "head -c 1600000 /dev/zero > b.bin\n")
            verdict = await d.send(pack(second), token)
            assert not verdict.accepted
            assert "your versions would keep 3 MiB" in verdict.reason  # rounded: 3.0x MiB
            assert "more than the 3 MiB an author may" in verdict.reason
            rows, versions, _ = d.stored()
            assert rows == 2 and len(versions) == 1  # the first kept, the second not

    asyncio.run(body())
