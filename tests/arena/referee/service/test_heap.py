"""The heap frozen while games are played: left out of full collections, thawed after."""

from __future__ import annotations

import asyncio
import gc
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from tournament_harness import Quiet

from arena.bots.isolation.sandbox import SandboxMode
from arena.referee.service.heap import frozen_heap
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament

BOTS = Path(__file__).resolve().parents[2] / "tournament_bots"


def test_what_exists_is_frozen_while_inside_and_thawed_after() -> None:
    gc.collect()  # swept since any earlier play's thaw
    assert gc.get_freeze_count() == 0
    with frozen_heap():
        frozen = gc.get_freeze_count()
        assert frozen > len(gc.get_objects()) // 2  # the heap that was, not what came after
        gc.collect()  # a full collection now walks only what is not frozen
        assert gc.get_freeze_count() == frozen
    assert gc.get_freeze_count() == 0


def test_a_thawed_heap_collects_what_died_while_frozen() -> None:
    class Node:
        other: object = None

    gc.collect()
    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only a collection frees it
    with frozen_heap():
        del a, b
        assert not any(type(o) is Node for o in gc.get_objects())  # frozen: out of sight
    gc.collect()
    assert gc.get_freeze_count() == 0  # and collected once thawed
    assert sum(type(o) is Node for o in gc.get_objects()) == 0


def test_a_play_begun_before_a_sweep_since_the_last_thaw_does_not_freeze_the_dead() -> None:
    """A league server's rounds follow each other: the next round's freeze, a moment after
    the last one's thaw, must not keep what that round left dead for good."""

    class Node:
        other: object = None

    def nodes() -> int:
        return sum(type(o) is Node for o in gc.get_objects())

    gc.collect()
    with frozen_heap():  # a round
        a, b = Node(), Node()
        a.other, b.other = b, a
        del a, b  # dead when the round ends, but a cycle: only a full collection frees it
    with frozen_heap():  # the next round, at once
        assert gc.get_freeze_count() == 0 and nodes() == 2  # not frozen: still in sight
        gc.collect()
        assert nodes() == 0
    gc.collect()
    with frozen_heap():  # swept since the thaw: frozen again
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_overlapping_plays_share_one_freeze_thawed_when_the_last_ends() -> None:
    gc.collect()
    first, second = frozen_heap(), frozen_heap()
    first.__enter__()
    frozen = gc.get_freeze_count()
    second.__enter__()
    first.__exit__(None, None, None)
    assert gc.get_freeze_count() == frozen  # the second play still holds it
    second.__exit__(None, None, None)
    assert gc.get_freeze_count() == 0


@dataclass
class _Frozen(Quiet):
    """An observer that notes, at each game's end, whether the heap is frozen then."""

    seen: list[int] = field(default_factory=list)

    def game_finished(self, line: object, table: object, progress: object) -> None:
        self.seen.append(gc.get_freeze_count())


def test_a_tournament_plays_its_games_with_the_heap_frozen(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(BOTS / f"{name}.py", bots / f"{name}.py")
    config = TournamentConfig(
        bots_dir=bots,
        out=tmp_path / "out",
        games=2,
        jobs=1,
        move_time=10.0,
        connect_timeout=60,
        name="frozen",
        sandbox=SandboxMode.OFF,
    )
    observer = _Frozen()
    gc.collect()
    summary = asyncio.run(Tournament(config, observer).run())
    assert summary.status == "finished" and len(observer.seen) == 2
    assert all(count > 0 for count in observer.seen)  # frozen while the games were played
    assert gc.get_freeze_count() == 0  # and thawed when play ended
