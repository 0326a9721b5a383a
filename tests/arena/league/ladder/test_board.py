"""The ladder's board read as it grows: the same as rated from scratch whatever happens to the
store between two looks, and a warm look reading only what is new since the last."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ladder_season import Season, Spy, scratch, seen

from arena.league.ladder.board import LadderBoard
from arena.league.ladder.ratings import VersionRatings


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
    assert spy.asked == ["through", "after", f"games {new}", f"games {playing}"]
    assert spy.rows == 2 + 3 + 2  # two rounds listed, and their games
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
