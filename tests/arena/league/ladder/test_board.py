"""The ladder's board read as it grows: the same as rated from scratch whatever happens to the
store between two looks, and a warm look reading only what is new since the last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ladder_season import Season, Spy, scratch, seen

from arena.league.ladder.board import LadderBoard
from arena.league.ladder.ratings import VersionRatings
from arena.records import GameLine


def test_a_board_read_as_it_grows_equals_the_board_rated_from_scratch(tmp_path: Path) -> None:
    for seed in range(3):
        (tmp_path / str(seed)).mkdir()
        season = Season(tmp_path / str(seed), seed)
        board = LadderBoard(VersionRatings(season.results), season.results)
        for _ in range(25):
            move = season.rng.random()
            if move < 0.1:  # a restart: the snapshot kept at its stop read back
                board.save()
                board = LadderBoard(VersionRatings(season.results), season.results)
            stored = [tid for tid, _ in season.store.tournaments()]
            if move < 0.5:
                season.play()
            elif move < 0.65:
                season.play(finished=False)
            elif move < 0.8 and season.busy:
                season.finish(season.rng.choice(sorted(season.busy)))
            elif move < 0.9 and stored:  # a round (settled or not) taken out of the store
                season.store.remove_tournament(season.rng.choice(stored))
            else:
                season.night()
            assert seen(board.read(season.store, season.busy)) == scratch(season)


def test_a_settled_round_removed_makes_the_board_rate_afresh(tmp_path: Path) -> None:
    season = Season(tmp_path, 7)
    board = LadderBoard(VersionRatings(season.results))
    rids = [season.play() for _ in range(6)]
    before = seen(board.read(season.store, ()))
    for rid in (rids[2], rids[-1]):  # one in the middle, then the last settled
        season.store.remove_tournament(rid)
        after = seen(board.read(season.store, ()))
        assert after == scratch(season) and after != before
        before = after


def test_a_warm_look_reads_only_the_rounds_after_the_last_settled(tmp_path: Path) -> None:
    """Nor does it count the settled rounds (a count grows with the season: about 30 ms at
    a million games): the store's changes since the generation it last saw say that none
    of them was touched."""
    season = Season(tmp_path, 3)
    season.store = Spy(tmp_path / "spy.db")
    board = LadderBoard(VersionRatings(season.results))
    for _ in range(40):
        season.play(games=3)
    board.read(season.store, ())
    spy: Any = season.store
    spy.asked.clear()
    spy.rows = 0
    new = season.play(games=3)
    playing = season.play(finished=False, games=2)
    looked = seen(board.read(season.store, season.busy))
    assert spy.asked == ["changed", "after", f"games {new}", f"games {playing}"]
    assert spy.rows == 2 + 2 + 3 + 2  # two rounds listed, the same two changed, their games
    assert looked == scratch(season)


def test_a_look_leaves_the_paths_of_the_last_look_as_they_were(tmp_path: Path) -> None:
    season = Season(tmp_path, 5)
    board = LadderBoard(VersionRatings(season.results))
    for _ in range(5):
        season.play()
    playing = season.play(finished=False)
    first = seen(board.read(season.store, season.busy))
    held = board.read(season.store, season.busy)
    season.finish(playing)
    for _ in range(3):
        season.play()
    board.read(season.store, season.busy)  # the settled paths grow under the copy held
    assert seen(held) == first


def test_a_restart_from_the_snapshot_counts_no_settled_round(tmp_path: Path) -> None:
    season = Season(tmp_path, 4)
    season.store = Spy(tmp_path / "spy.db")
    board = LadderBoard(VersionRatings(season.results), season.results)
    for _ in range(30):
        season.play(games=3)
    board.read(season.store, ())
    board.save()
    new = season.play(games=3)  # while it was stopped
    spy: Any = season.store
    spy.asked.clear()
    started = LadderBoard(VersionRatings(season.results), season.results)
    looked = seen(started.read(season.store, ()))
    assert spy.asked == ["changed", "after", f"games {new}"]
    assert looked == scratch(season)


def test_a_settled_round_given_a_game_makes_the_board_rate_afresh(tmp_path: Path) -> None:
    season = Season(tmp_path, 8)
    board = LadderBoard(VersionRatings(season.results))
    rids = [season.play() for _ in range(5)]
    before = seen(board.read(season.store, ()))
    line = next(iter(season.store.games_of(rids[1]).values()))
    late = GameLine("u000-t000-r9", 9, line.players, line.ranking[::-1], (), {})
    season.store.add_game(rids[1], late)  # a game the board's settled rounds do not have
    after = seen(board.read(season.store, ()))
    assert after == scratch(season) and after != before


def test_a_round_finished_while_a_look_reads_is_not_taken_for_a_change(tmp_path: Path) -> None:
    """Its last game is written after the look read the store's generation, so the next look
    finds it changed since: it still has the games it was rated with, so nothing is rated
    again."""
    season = Season(tmp_path, 6)
    season.store = Spy(tmp_path / "spy.db")
    spy: Any = season.store
    board = LadderBoard(VersionRatings(season.results))
    for _ in range(4):
        season.play(games=2)
    playing = season.play(finished=False, games=2)
    board.read(season.store, season.busy)
    line = next(iter(season.store.games_of(playing).values()))
    reading = spy.tournaments_after

    def finished_meanwhile(mark: Any, limit: Any = None) -> Any:
        spy.tournaments_after = reading
        season.store.add_game(
            playing, GameLine("u000-t000-r2", 2, line.players, line.ranking, (), {})
        )
        season.finish(playing)
        return reading(mark, limit)

    spy.tournaments_after = finished_meanwhile
    board.read(season.store, season.busy)  # reads its generation, then the round finishes
    spy.asked.clear()
    looked = seen(board.read(season.store, season.busy))
    assert spy.asked == ["changed", "after"]  # nothing rated again
    assert looked == scratch(season)


def test_a_first_start_on_a_budget_rates_the_season_over_several_looks(tmp_path: Path) -> None:
    """Without its snapshot a start rates every round on record (500 s at a million games,
    in the server's event loop): on a budget a look rates a round at least and returns the
    board as far as rated, and the looks after it go on, to the board rated at once."""
    season = Season(tmp_path, 9)
    for _ in range(12):
        season.play()
    season.night()
    for _ in range(6):
        season.play()
    playing = season.play(finished=False)
    board = LadderBoard(VersionRatings(season.results), season.results)
    looks, growing = 0, []
    while True:
        look = board.read(season.store, season.busy, budget=0.0)
        looks += 1
        growing.append(sum(len(path) for path in look.state.paths.values()))
        if not board.behind:
            break
        if looks % 3 == 0:
            season.play()  # the ladder goes on meanwhile
    assert looks > 10 and growing == sorted(growing)
    season.finish(playing)  # the rounds after it settle now too, a look at a time
    read = board.read(season.store, season.busy, budget=0.0)
    while board.behind:
        read = board.read(season.store, season.busy, budget=0.0)
    assert seen(read) == scratch(season)
