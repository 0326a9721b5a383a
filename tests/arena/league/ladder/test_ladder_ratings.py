"""The ladder's ratings per version: each version rated apart from the version each round
recorded, a new one starting from its last with a widened sigma, read back from real round
folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from ladder_season import lay_out_round

from arena.league.ladder.ratings import RatingState, Version, VersionRatings
from arena.matchmaking import FRESH, starting_rating
from arena.records import GameLine

NAMES = ("alpha", "beta", "gamma")


def _game(n: int, ranking: tuple[str, ...]) -> GameLine:
    return GameLine(f"g{n:03d}", n, NAMES, ranking, (), {})


def test_a_new_version_is_rated_apart_starting_from_its_last_with_a_wider_sigma(
    tmp_path: Path,
) -> None:
    lay_out_round(tmp_path, "ladder-000000", {"alpha": 1, "beta": 1, "gamma": None}, finished=True)
    lay_out_round(tmp_path, "ladder-000001", {"alpha": 2, "beta": 1, "gamma": None}, finished=True)
    first = [("ladder-000000", _game(i, ("alpha", "beta", "gamma"))) for i in range(8)]
    ratings = VersionRatings(tmp_path)

    before = ratings.rate(first)
    old, old_games = before.of(Version("alpha", 1))
    assert old_games == 8 and old.mu > FRESH.mu
    waiting, games = before.of(Version("alpha", 2))  # submitted, not yet played
    assert games == 0 and waiting == starting_rating(old)
    assert waiting.mu == old.mu and old.sigma < waiting.sigma <= FRESH.sigma

    second = [("ladder-000001", _game(8 + i, ("gamma", "beta", "alpha"))) for i in range(3)]
    after = ratings.rate(first + second)
    new, new_games = after.of(Version("alpha", 2))
    assert new_games == 3 and new.mu < old.mu  # its own games moved it, from where v1 stood
    assert after.of(Version("alpha", 1)) == (old, 8)  # the old version's games stay its own
    assert after.of(Version("beta", 1))[1] == 11
    assert after.of(Version("gamma", None))[1] == 11  # dialled in: one version all along


def test_the_table_shows_the_version_that_plays_once_it_has_played(tmp_path: Path) -> None:
    lay_out_round(tmp_path, "ladder-000000", {"alpha": 1, "beta": 1, "gamma": 1}, finished=True)
    lay_out_round(tmp_path, "ladder-000001", {"alpha": 2, "beta": 1, "gamma": 1}, finished=False)
    lines = [("ladder-000000", _game(i, ("alpha", "beta", "gamma"))) for i in range(5)]
    rated = VersionRatings(tmp_path).rate(lines)
    playing = {n: Version(n, 1) for n in NAMES} | {"alpha": Version("alpha", 2)}
    table = rated.current(playing)
    assert table[0][0] == Version("alpha", 1)  # v2 has not played: v1 is shown
    assert [s.name for _, s in table] == ["alpha", "beta", "gamma"]

    lines.append(("ladder-000001", _game(5, ("beta", "gamma", "alpha"))))
    table = VersionRatings(tmp_path).rate(lines).current(playing)
    shown = {s.name: (v, s.games) for v, s in table}
    assert shown["alpha"] == (Version("alpha", 2), 1)


def test_an_unfinished_rounds_pins_are_read_again_and_a_finished_ones_once(
    tmp_path: Path,
) -> None:
    lay_out_round(tmp_path, "ladder-000000", {"alpha": 1, "beta": 1, "gamma": 1}, finished=False)
    ratings = VersionRatings(tmp_path)
    assert ratings.versions_in("ladder-000000")["alpha"] == 1
    lay_out_round(tmp_path, "ladder-000000", {"alpha": 2, "beta": 1, "gamma": 1}, finished=True)
    assert ratings.versions_in("ladder-000000")["alpha"] == 2  # read again: it was unfinished
    shutil.rmtree(tmp_path / "ladder-000000")
    assert ratings.versions_in("ladder-000000")["alpha"] == 2  # kept once finished


def test_a_round_whose_folder_is_gone_is_rated_as_dialled_in(tmp_path: Path) -> None:
    rated = VersionRatings(tmp_path).rate([("ladder-000009", _game(0, NAMES))])
    dialled, games = rated.of(Version("alpha", None))
    assert games == 1
    assert rated.of(Version("alpha", 4)) == (starting_rating(dialled), 0)


def test_a_copys_paths_share_the_originals_and_read_as_lists(tmp_path: Path) -> None:
    """A look's copy of the settled state: its paths are the original's up to the copy, then
    its own games, whatever the original adds after."""
    lay_out_round(tmp_path, "ladder-000000", {n: 1 for n in NAMES}, finished=True)
    ratings = VersionRatings(tmp_path)
    state = RatingState()
    state.add(ratings.labelled(("ladder-000000", _game(i, NAMES)) for i in range(4)))
    before = list(state.paths["alpha"])
    copied = state.copy()
    copied.add(ratings.labelled([("ladder-000000", _game(9, NAMES[::-1]))]))
    state.add(ratings.labelled(("ladder-000000", _game(5 + i, NAMES)) for i in range(3)))
    path = copied.paths["alpha"]
    assert len(path) == 5 and list(path[:4]) == before and path[-1] == list(path)[4]
    assert path[-1] < path[3]  # its own last game, lost, not the original's wins
    assert len(state.paths["alpha"]) == 7 and list(state.paths["alpha"])[:4] == before
    assert copied.rated().of(Version("alpha", 1))[1] == 5  # the original's games not in it
    assert state.rated().of(Version("alpha", 1))[1] == 7
    with pytest.raises(IndexError):
        path[5]
