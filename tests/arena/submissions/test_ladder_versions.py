"""The ladder plays the submitted versions and rates each apart: a new version, submitted
while the ladder plays, is seated in the next rounds for its placement burst, and the
status names it with its own games."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from submit_harness import SAMPLES, Desk, desk

from arena.league.ladder.rounds import is_ladder
from arena.matchmaking import PLACEMENT_GAMES
from arena.protocol.messages import admin as apb
from arena.submissions.archive import pack
from arena.tournament.results.resuming import read_info

BOTS = ("random_bot.py", "binomial_bot.py", "strong_bot.py", "bluffer_bot.py")
WAIT_S = 180.0


def _pins(d: Desk) -> list[tuple[str, dict[str, int]]]:
    """Each ladder round with games on record, in order: the version each entrant played."""
    rounds = [tid for tid, games in d.server.store.tournaments() if is_ladder(tid) and games]
    found = []
    for tid in rounds:
        bots = read_info(d.server.config.out / tid).bots
        found.append((tid, {n: b.version.number for n, b in bots.items() if b.version}))
    return found


async def _until(check: object, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while not check():  # type: ignore[operator]
        assert loop.time() < deadline, f"no {what} within {WAIT_S:g} s"
        await asyncio.sleep(0.2)


@pytest.mark.slow
def test_a_new_version_gets_its_placement_burst_and_a_rating_of_its_own(tmp_path: Path) -> None:
    async def body() -> None:
        async with desk(tmp_path) as d:
            tokens = {}
            for bot in BOTS:
                name = pack(SAMPLES / bot).name
                tokens[bot] = d.register(name)
                verdict = await d.send_bot(SAMPLES / bot, tokens[bot])
                assert verdict.accepted, verdict
            await d.admin.Ladder(
                apb.LadderRequest(action=apb.LadderRequest.ACTION_START), metadata=d.metadata
            )
            await _until(lambda: len(_pins(d)) >= 3, "three ladder rounds")

            # A second version of one entrant, sent while the ladder plays.
            changed = tmp_path / "random_bot.py"
            shutil.copy(SAMPLES / "random_bot.py", changed)
            changed.write_text(changed.read_text() + "\n# version two\n")
            name = pack(changed).name
            second = await d.send_bot(changed, tokens["random_bot.py"])
            assert second.accepted and second.version == 2, second
            before = len(_pins(d))

            sat_out = []

            def burst_done() -> bool:
                sat_out.extend(s.name for s in d.server.ladder.sideline.now())
                return sum(p.get(name) == 2 for _, p in _pins(d)) * 3 >= PLACEMENT_GAMES

            await _until(burst_done, f"{PLACEMENT_GAMES} games of the new version")
            status = await d.admin.Ladder(
                apb.LadderRequest(action=apb.LadderRequest.ACTION_STOP), metadata=d.metadata
            )
            rounds = _pins(d)[before:]
            with_v2 = [pins for _, pins in rounds if pins.get(name) == 2]
            # Every round that seats the entrant after the new version's first plays the new
            # version, until its burst is done, unless it sat out meanwhile (a machine so busy
            # that it did not connect in time). A round chosen while the new version was at
            # another table in play cannot seat it: those seat it not at all, and do not count.
            first_v2 = next(i for i, (_, p) in enumerate(rounds) if p.get(name) == 2)
            seating = [(tid, p) for tid, p in rounds[first_v2:] if name in p]
            burst = seating[: PLACEMENT_GAMES // 3]
            seen = [(tid, p.get(name)) for tid, p in rounds]  # the new version's seat in each
            ladder = d.server.ladder
            said = f"{seen}; error {ladder.error!r}; fit {ladder.refit.ratings}"
            assert name in sat_out or all(p.get(name) == 2 for _, p in burst), said
            row = next(s for s in status.standings if s.name == name)
            assert row.version == 2
            assert row.games == 3 * len(with_v2)  # its own games, not the entrant's

    asyncio.run(body())
