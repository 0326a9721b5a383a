"""`arena league rebuild` takes in a folder only as the run it is: a folder whose name the
league (or a folder read before it) holds from another run is left out, and says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from truth_harness import arena, content, copy_night, enter, league_at, write_info


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_folder_of_a_name_held_by_another_run_is_left_out_with_the_reason(
    kind: str,
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    league = league_at(kind, tmp_path, request)
    first = copy_night(night, league, tmp_path / "out")
    second = copy_night(night, league, tmp_path / "out2")
    write_info(second, run_id="0f" * 16)  # another run, under the same name
    if kind == "postgres":  # a database is filled in, not made again: it holds the first
        enter(league, first)
    before = content(league)
    roots = ["--results", str(second.parent)]
    if kind == "sqlite":  # both folders: the league is made of them alone
        roots = ["--results", str(first.parent), *roots]
    code, said, err = arena(capsys, "league", "rebuild", "--league", str(league), *roots)
    said = " ".join(said.split())
    assert (code, err) == (0, ""), err
    if kind == "postgres":
        assert (
            "Rebuilt postgresql://" in said and "0 tournaments, 0 games" in said
        )  # the league's own run stays; the other folder is left out
        assert f"! {second}: left out: the league holds another run under the name 'night'" in said
        assert "arena league remove night --league postgresql://" in said
        assert content(league) == before
    else:  # the folders are read in order: the second of the name is left out
        assert "night: 6 games" in said and "1 tournaments, 6 games" in said
        assert f"! {second}: left out: {first} is another run under the name 'night'" in said
