"""The ladder's finished rounds folded into their days' records (`arena serve`'s default):
no round folder left once its round is over, every game still replayed by its id, verified
and checked, and a round a kill left finished but not folded folded at the next start."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from league_harness import SAMPLE_BOTS, League, eventually, league, run
from truth_harness import arena

from arena.league.ladder.rounds import is_ladder
from arena.protocol.messages import admin as apb
from arena.tournament.results.days import all_rounds, days_folder
from arena.tournament.results.verify import verify

SCRIPTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}


async def _connect(lg: League) -> None:
    tokens = lg.register(*SCRIPTS)
    for name, script in SCRIPTS.items():
        lg.launch(name, tokens[name], sessions=3, script=SAMPLE_BOTS / script)
    await lg.wait_connected(dict.fromkeys(SCRIPTS, 3))


async def _ladder(lg: League, action: int) -> apb.LadderResponse:
    request = apb.LadderRequest(action=action)  # type: ignore[arg-type]
    return await lg.admin.Ladder(request, metadata=lg.metadata, timeout=60)  # type: ignore[no-any-return]


def _stored(lg: League) -> dict[str, int]:
    store = lg.server.store
    return {tid: games for tid, games in store.tournaments() if is_ladder(tid) and games}


def _status(folder: Path) -> str:
    return str(json.loads((folder / "tournament.json").read_text())["status"])


def _folded(results: Path) -> dict[str, int]:
    return {r.id: len(r.lines) for r in all_rounds(results)}


def test_finished_rounds_are_folded_and_read_back_by_every_reader(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "results"

    async def body() -> None:
        async with league(tmp_path, ladder_compact=True) as lg:
            await _connect(lg)
            await _ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: len(_folded(results)) >= 2, "two rounds folded", 60)
            stopped = await _ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert not stopped.running
            assert sum(s.games for s in stopped.standings) == 3 * sum(_stored(lg).values())
            # A round the stop cut short keeps its folder, to resume; every other is folded.
            kept = {p.name: _status(p) for p in results.glob("ladder-*")}
            assert set(kept.values()) <= {"interrupted"}, kept
            assert set(_stored(lg)) <= set(_folded(results)) | set(kept)
            for name, games in _folded(results).items():
                assert _stored(lg)[name] == games
            latest = stopped.latest[0]
            assert latest.round in _folded(results)

    run(body)
    rounds = list(all_rounds(results))
    files = [p for p in days_folder(results).rglob("*") if p.is_file()]
    assert len(files) <= 5  # the index, its lock, and one day's three files
    for folded in rounds:
        assert verify(results / folded.id).ok
    first = rounds[0]
    game = first.lines[0].game
    code, said, err = arena(capsys, "replay", f"{first.id}/{game}", "--results", str(results))
    assert code == 0 and f"Game {game}" in said, err
    league_file = tmp_path / "league" / "league.sqlite"
    check = ["league", "check", "--league", str(league_file), "--results", str(results)]
    code, said, err = arena(capsys, *check)
    assert code == 0, said + err


def test_a_round_left_finished_by_a_kill_is_folded_at_the_next_start(tmp_path: Path) -> None:
    results = tmp_path / "results"

    async def first() -> None:
        async with league(tmp_path) as lg:  # folders kept: as a kill before the fold leaves
            await _connect(lg)
            await _ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: len(_stored(lg)) >= 1, "a round recorded", 60)
            await _ladder(lg, apb.LadderRequest.ACTION_STOP)

    run(first)
    finished = [p.name for p in results.glob("ladder-*") if _status(p) == "finished"]
    assert finished

    async def second() -> None:
        async with league(tmp_path, ladder_compact=True) as lg:
            await _connect(lg)
            await _ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(
                lambda: set(finished) <= set(_folded(results)), "the old rounds folded", 60
            )
            await _ladder(lg, apb.LadderRequest.ACTION_STOP)

    run(second)
    assert not any((results / name).exists() for name in finished)
    assert all(verify(results / name).ok for name in finished)
