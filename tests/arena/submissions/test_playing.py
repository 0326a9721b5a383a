"""`arena admin start` with no --bots plays every entrant's submitted version, built once, beside
the remote bots that dial in; tournament.json records each version and `arena verify` checks
the trees still hash to it."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest
from archives import MANIFEST, bot, file, tar_gz
from league_harness import STEADY, Tournament
from submit_harness import SAMPLES, Desk, desk

from arena.protocol.messages import admin as apb
from arena.submissions.archive import Packed
from arena.tournament.results.verify import verify

SEED = "5eed" * 16
BUILT = tar_gz(
    bot(
        file("build.sh", b"mkdir -p bin && echo built > bin/flag\n"),
        manifest=MANIFEST.replace(b"alice", b"builder") + b'build = "sh build.sh"\n',
    )
)


def _remote(d: Desk, name: str, token: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")}
    env |= {
        "PERUDO_ADDRESS": f"127.0.0.1:{d.server.port}",
        "PERUDO_BOT_NAME": name,
        "PERUDO_TOKEN": token,
        "PERUDO_SESSIONS": "2",
    }
    log = (d.tmp / f"{name}.log").open("wb")
    return subprocess.Popen([sys.executable, str(STEADY)], env=env, stdout=log, stderr=log)


async def _connected(d: Desk) -> set[str]:
    status = await d.admin.GetStatus(apb.GetStatusRequest(), metadata=d.metadata)
    return {bot.name for bot in status.bots}


async def _night(d: Desk, name: str, table_size: int = 3) -> Tournament:
    request = apb.StartTournamentRequest(
        seed=bytes.fromhex(SEED), games=6, table_size=table_size, name=name
    )
    return await Tournament.follow(d.admin.StartTournament(request, metadata=d.metadata))


@pytest.mark.slow
def test_admin_start_plays_the_submitted_versions_built_once(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            random_token = d.register("random-bot")
            assert (await d.send_bot(SAMPLES / "random_bot.py", random_token)).accepted
            built = await d.send(Packed("builder", BUILT, 3, ()), d.register("builder"))
            assert built.accepted, built
            remote = _remote(d, "steady", d.register("steady"))
            # The author of random-bot also dials in: its submitted version plays instead.
            mirror = _remote(d, "random-bot", random_token)
            try:
                while await _connected(d) != {"steady", "random-bot"}:
                    await asyncio.sleep(0.05)
                first = await _night(d, "night-1")
                info = first.info()
                assert sorted(info["entrants"]) == ["builder", "random-bot", "steady"]
                assert info["bots"]["steady"] == {"remote": True}
                pinned = {n: b["version"] for n, b in info["bots"].items() if "version" in b}
                assert {n: p["number"] for n, p in pinned.items()} == {
                    "builder": 1,
                    "random-bot": 1,
                }
                assert pinned["builder"]["sha256"] == built.sha256
                notes = first.of("note")  # a version plays as it was checked: never rebuilt
                assert not [n for n in notes if "building builder" in n or "rebuilt" in n]
                assert mirror.wait(timeout=20) is not None  # told goodbye: its version plays
                assert verify(first.folder).ok
                second = await _night(d, "night-2")
                assert not [n for n in second.of("note") if "builder" in n and "buil" in n]
                assert second.info()["bots_dir"] == info["bots_dir"]  # the same line-up
                # A version's tree changed after the night: verify finds it.
                tree = Path(info["bots"]["builder"]["path"]).resolve()
                (tree / "bot.py").write_text("print('changed')\n")
                problems = verify(first.folder).problems
                assert any("builder (version 1): the tree it played from" in p for p in problems)
            finally:
                for process in (remote, mirror):
                    process.kill()
                    process.wait(timeout=10)

    asyncio.run(body())


def test_a_version_whose_tree_names_another_entrant_plays_under_its_own_name(
    tmp_path: Path,
) -> None:
    """The attack on the seats: mallory's built tree says `name = "zoe"` (a build did so
    before builds were refused for it). Read from the tree, mallory's code took zoe's seat
    and zoe sat out; seated by their pins, each plays its own code under its own name."""

    async def body() -> None:
        async with desk(tmp_path) as d:
            accepted = {}
            for name in ("mallory", "zoe"):
                manifest = MANIFEST.replace(b"alice", name.encode())
                packed = Packed(name, tar_gz(bot(manifest=manifest)), 2, ())
                accepted[name] = await d.send(packed, d.register(name))
                assert accepted[name].accepted, accepted[name]
            tree = d.files.bot(accepted["mallory"].sha256)
            (tree / "bot.toml").write_bytes(MANIFEST.replace(b"alice", b"zoe"))
            night = await _night(d, "seats", table_size=2)
            info = night.info()
            assert sorted(info["entrants"]) == ["mallory", "zoe"]
            for name in ("mallory", "zoe"):
                played = Path(info["bots"][name]["path"]).resolve()
                assert played == d.files.bot(accepted[name].sha256)
                assert info["bots"][name]["version"]["sha256"] == accepted[name].sha256
            assert not info["skipped"], info["skipped"]
            assert verify(night.folder).ok

    asyncio.run(body())
