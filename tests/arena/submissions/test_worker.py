"""A submission's build and check in its worker: a build may not change the manifest the bot
was taken in with, since the server seats and runs a version by that manifest alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

from submit_harness import SAMPLES, desk

from arena.submissions.archive import pack

ZOE = 'name = "zoe"\nrun = "python bot.py"\n'


def _bot(tmp: Path, build: str) -> Path:
    bot = tmp / "mallory"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "mallory"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
    )
    (bot / "build.sh").write_text(build)
    (bot / "bot.py").write_bytes((SAMPLES / "random_bot.py").read_bytes())
    return bot


def test_a_build_that_renames_its_bot_after_another_entrant_is_refused(tmp_path: Path) -> None:
    """The attack: a build step rewrites bot.toml to name zoe; accepted, mallory's code took
    zoe's seat at the next night. Now the verdict is a rejection, and nothing is kept."""

    async def body() -> None:
        async with desk(tmp_path) as d:
            d.register("zoe")
            bot = _bot(tmp_path, f"printf '{ZOE}' > bot.toml\n")
            verdict = await d.send(pack(bot), d.register("mallory"))
            assert not verdict.accepted
            assert verdict.reason.startswith("its build changed bot.toml"), verdict
            rows, versions, leftovers = d.stored()
            assert (rows, versions, leftovers) == (1, [], [])

    asyncio.run(body())


def test_a_build_that_swaps_its_manifest_for_a_link_is_refused(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = _bot(tmp_path, f"printf '{ZOE}' > other.toml && ln -sf other.toml bot.toml\n")
            verdict = await d.send(pack(bot), d.register("mallory"))
            assert verdict.reason.startswith("its build changed bot.toml"), verdict

    asyncio.run(body())


def test_a_build_that_leaves_its_manifest_alone_is_accepted(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            bot = _bot(tmp_path, "mkdir -p bin && cp bot.toml bin/copy.toml\n")
            verdict = await d.send(pack(bot), d.register("mallory"))
            assert verdict.accepted, verdict

    asyncio.run(body())
