"""The ladder on a real league server: kit bots in processes of their own, rounds chosen by
the matchmaker, played, and recorded in the league store and the results folder."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path

import pytest
from league_harness import SAMPLE_BOTS, League, eventually, league, run

from arena.cli.main import main
from arena.league.ladder.board import LATEST
from arena.league.ladder.rounds import is_ladder
from arena.league.league_server import LeagueConfig, LeagueServer
from arena.protocol.messages import admin as apb
from arena.records import GameLine
from arena.store import StoreError
from arena.tournament.report.ratings import rate_all, result_of

SCRIPTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}
FOUR = SCRIPTS | {"delta": "bluffer_bot.py"}
"""Enough for two tables of two at once."""


async def connect(lg: League, scripts: dict[str, str] = SCRIPTS) -> None:
    tokens = lg.register(*scripts)
    for name, script in scripts.items():
        lg.launch(name, tokens[name], sessions=3, script=SAMPLE_BOTS / script)
    await lg.wait_connected(dict.fromkeys(scripts, 3))


async def ladder(lg: League, action: int) -> apb.LadderResponse:
    request = apb.LadderRequest(action=action)  # type: ignore[arg-type]
    return await lg.admin.Ladder(request, metadata=lg.metadata, timeout=60)  # type: ignore[no-any-return]


def stored(lg: League) -> dict[str, list[str]]:
    """The ladder's game ids in the league store, by round with games (a round stopped
    before its first game's end has none, as its journal has none)."""
    store = lg.server.store
    rounds = [tid for tid, games in store.tournaments() if is_ladder(tid) and games]
    return {tid: sorted(store.games_of(tid)) for tid in rounds}


def journaled(results: Path) -> dict[str, list[str]]:
    """The ladder's game ids in its rounds' games.jsonl, by round."""
    found = {}
    for folder in sorted(results.glob("ladder-*")):
        journal = folder / "games.jsonl"
        lines = journal.read_text().splitlines() if journal.is_file() else []
        found[folder.name] = sorted(json.loads(line)["game"] for line in lines)
    return {k: v for k, v in found.items() if v}


def ladder_games(lg: League) -> int:
    return sum(len(ids) for ids in stored(lg).values())


def test_the_ladder_plays_records_and_stops_after_its_games_in_flight(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            await connect(lg)
            started = await ladder(lg, apb.LadderRequest.ACTION_START)
            assert started.running and not started.paused and list(started.table_sizes) == [3]
            await eventually(lambda: ladder_games(lg) >= 6, "two rounds recorded", 30)
            refit = lg.server.ladder.refit  # fitted once the second table was chosen
            await eventually(lambda: refit.refits >= 1, "a fit of the ladder's games", 60)
            stopped = await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert not stopped.running
            # Stopped with nothing in flight: every game it began is on record both ways.
            on_record = stored(lg)
            assert on_record == journaled(tmp_path / "results")
            ids = [(tid, game) for tid, games in on_record.items() for game in games]
            assert len(ids) == len(set(ids))
            assert {s.name for s in stopped.standings} == set(SCRIPTS)
            assert all(s.version == 0 for s in stopped.standings)  # all dialled in
            assert sum(s.games for s in stopped.standings) == 3 * len(ids)
            assert stopped.latest and all(len(g.ranking) == 3 for g in stopped.latest)
            assert set(refit.ratings) == set(SCRIPTS)
            after = ladder_games(lg)
            assert (await ladder(lg, apb.LadderRequest.ACTION_STATUS)).running is False
            assert ladder_games(lg) == after

    run(body)


def board_games(league_file: Path, which: str, capsys: pytest.CaptureFixture[str]) -> int:
    """Seats of `arena leaderboard --json` with `which` (--ladder or --nights): games x 3."""
    capsys.readouterr()
    assert main(["leaderboard", "--league", str(league_file), "--json", which]) == 0
    return sum(row["games"] for row in json.loads(capsys.readouterr().out))


def test_jobs_for_two_tables_play_two_disjoint_tables_at_once(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, ladder_table_sizes=(2,), ladder_jobs=4) as lg:
            await connect(lg, FOUR)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            seen: list[dict[str, tuple[str, ...]]] = []

            def two_tables() -> bool:
                seen.append(dict(lg.server.ladder.tables))
                return len(seen[-1]) == 2

            await eventually(two_tables, "two tables in play at once", 30)
            status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)
            await eventually(lambda: ladder_games(lg) >= 8, "four rounds recorded", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            # No entrant at two tables at once, in any look at the tables in play.
            for tables in seen:
                seats = [name for table in tables.values() for name in table]
                assert len(seats) == len(set(seats)), tables
            assert len(status.tables) in (1, 2)
            on_record = stored(lg)
            assert on_record == journaled(tmp_path / "results")
            ids = [(tid, game) for tid, games in on_record.items() for game in games]
            assert len(ids) == len(set(ids))
            assert all(len(games) == 2 for games in on_record.values())  # every round whole

    run(body)


def test_the_results_folder_is_listed_once_not_at_every_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ladder's folder holds thousands of rounds by evening: each choice reads only the
    rounds that ended since the last, and a restart's leftovers are found at the first."""
    from arena.league.ladder.folders import RoundFolders

    listings = []
    listed = RoundFolders.listed

    def counted(self: RoundFolders) -> set[int]:
        listings.append(1)
        return listed(self)

    monkeypatch.setattr(RoundFolders, "listed", counted)

    async def body() -> None:
        async with league(tmp_path) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: len(stored(lg)) >= 4, "four rounds recorded", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert stored(lg) == journaled(tmp_path / "results")
            numbers = sorted(int(tid.removeprefix("ladder-")) for tid in stored(lg))
            assert numbers == list(range(len(numbers)))  # numbered on, none skipped

    run(body)
    assert len(listings) == 1


def test_a_ladder_of_several_table_sizes_plays_tables_of_each(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, ladder_table_sizes=(2, 3), ladder_jobs=3) as lg:
            await connect(lg, FOUR)
            started = await ladder(lg, apb.LadderRequest.ACTION_START)
            assert list(started.table_sizes) == [2, 3]

            def sizes() -> set[int]:
                return {len(games) for games in stored(lg).values()}

            # The matchmaker draws each table's size: both come, in some dozen rounds.
            await eventually(lambda: sizes() == {2, 3}, "tables of 2 and of 3 recorded", 120)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            on_record = stored(lg)
            assert on_record == journaled(tmp_path / "results")
            for tid, games in on_record.items():  # each round whole: a game per seat
                line = lg.server.store.games_of(tid)[games[0]]
                assert len(games) == len(line.players)

    run(body)


def test_a_night_pauses_the_ladder_and_it_goes_on_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: ladder_games(lg) >= 3, "a round recorded", 30)
            stream = lg.start(games=3, jobs=1, move_time=2.0, name="night-1")

            async def paused() -> bool:
                return (await ladder(lg, apb.LadderRequest.ACTION_STATUS)).paused

            await eventually(paused, "the ladder paused for the night", 20)
            held = ladder_games(lg)
            async for event in stream:
                if event.WhichOneof("kind") == "finished":
                    break
            # Nothing of the ladder was played while the night was.
            assert ladder_games(lg) == held
            await eventually(lambda: ladder_games(lg) > held, "the ladder went on", 30)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert stored(lg) == journaled(tmp_path / "results")
            assert len(lg.server.store.games_of("night-1")) == 3
            # The leaderboard shows either: the night's 3 games, or the ladder's.
            league_file = tmp_path / "league" / "league.sqlite"
            assert board_games(league_file, "--nights", capsys) == 3 * 3
            assert board_games(league_file, "--ladder", capsys) == 3 * ladder_games(lg)

    run(body)


@pytest.mark.parametrize("tables", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_a_restarted_ladder_goes_on_from_its_last_rounds(tmp_path: Path, tables: int) -> None:
    scripts, size = (SCRIPTS, 3) if tables == 1 else (FOUR, 2)

    async def first() -> None:
        async with league(tmp_path, ladder_table_sizes=(size,), ladder_jobs=size * tables) as lg:
            await connect(lg, scripts)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: ladder_games(lg) >= 3, "a round recorded", 30)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            before.update(stored(lg))

    async def second() -> None:
        async with league(tmp_path, ladder_table_sizes=(size,), ladder_jobs=size * tables) as lg:
            await connect(lg, scripts)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: len(stored(lg)) > len(before), "a new round recorded", 30)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            after.update(stored(lg))

    before: dict[str, list[str]] = {}
    after: dict[str, list[str]] = {}
    run(first)
    run(second)
    # The games recorded before are as they were (a round a stop left unfinished is resumed,
    # never played again), the new rounds numbered after them.
    assert all(set(games) <= set(after[tid]) for tid, games in before.items())
    assert min(set(after) - set(before)) > max(before)
    assert all(len(set(games)) == len(games) for games in after.values())
    assert after == journaled(tmp_path / "results")
    ids = [(tid, game) for tid, games in after.items() for game in games]
    assert len(ids) == len(set(ids))


def test_the_status_board_is_the_board_of_every_ladder_game_on_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rated round by round as they are recorded, the status's board and latest games are
    those of every ladder game in the store, rated afresh in its order: as games arrive out
    of their schedule's order in the last round, with a night between the rounds, and after
    a round is taken out of the store."""
    rng = random.Random(7)
    names = [f"bot{i}" for i in range(6)]

    def line(index: int) -> GameLine:
        seats = tuple(rng.sample(names, 3))
        ranking = tuple(rng.sample(seats, 3))
        return GameLine(f"g{index}", index, seats, ranking, (), {n: 1.0 for n in seats})

    def expected(server: LeagueServer) -> tuple[list[tuple[str, float, float, int]], list[str]]:
        lines = [(t, g) for t, g in server.store.lines() if is_ladder(t)]
        table = rate_all([result_of(g) for _, g in lines]).table()
        board = [(s.name, round(s.mu, 3), round(s.sigma, 3), s.games) for s in table]
        return board, [f"{t}/{g.game}" for t, g in lines[-LATEST:]]

    def seen(server: LeagueServer) -> tuple[list[tuple[str, float, float, int]], list[str]]:
        status = server.ladder.status()
        board = [(r.bot, r.mu, r.sigma, r.games) for r in status.standings]
        return board, [f"{g.round}/{g.game_id}" for g in status.latest]

    async def body() -> None:
        config = LeagueConfig(league=tmp_path / "league.sqlite", out=tmp_path / "results")
        server = LeagueServer(config)
        store = server.store
        assert not server.ladder.status().shown
        for number in range(12):
            tid = f"ladder-{number:06d}"
            store.add_tournament(tid, {"name": tid}, started=1000.0 + number)
            if number == 5:
                store.add_tournament("night-1", {"name": "night-1"}, started=1005.5)
                store.add_game("night-1", line(0))
            for index in rng.sample(range(3), 3):  # out of the schedule's order
                store.add_game(tid, line(index))
                assert seen(server) == expected(server)
        assert server.ladder.status().shown
        assert store.remove_tournament("ladder-000003") == 3
        assert seen(server) == expected(server)
        # A store that fails while the new rounds are read leaves none of them rated twice.
        for number in (12, 13, 14):
            tid = f"ladder-{number:06d}"
            store.add_tournament(tid, {"name": tid}, started=2000.0 + number)
            store.add_game(tid, line(0))
        games_of = store.games_of

        def failing(tid: str) -> dict[str, GameLine]:
            if tid == "ladder-000013":
                raise StoreError("the disk is full")
            return games_of(tid)

        monkeypatch.setattr(store, "games_of", failing)
        failed = server.ladder.status()  # the fault said, not raised: the status shows it
        assert failed.error == "the disk is full" and not failed.standings
        monkeypatch.undo()
        assert seen(server) == expected(server)
        # What a look costs once the rounds before the last are rated (not asserted).
        began = time.perf_counter()
        server.ladder.status()
        print(f"a look at the status: {1000 * (time.perf_counter() - began):.2f} ms")
        await server.stop()

    asyncio.run(body())
