"""The league never holds what the folders do not: a name the league holds from another run
is refused before any game, a resume of the run it holds goes on, and a folder that lost
games the league has, or records a game otherwise, is refused with the way out.

Real runs of the instant test bots, into SQLite in the default suite and PostgreSQL (as the
other league nights on it, in the slow one); refusals start no bot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from truth_harness import (
    KINDS,
    arena,
    content,
    copy_night,
    enter,
    info_of,
    league_at,
    resume,
    write_info,
)

from arena.store import open_store


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _league_equals_folder(league: Path | str, folder: Path) -> None:
    store = open_store(league)
    try:
        held = {line.game: line.to_json() for line in store.games_of(folder.name).values()}
    finally:
        store.close()
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    assert held == {line["game"]: line for line in lines}


@pytest.mark.parametrize("kind", KINDS)
def test_a_deleted_folder_run_again_under_its_name_is_refused_before_any_game(
    kind: str,
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    league = league_at(kind, tmp_path, request)
    folder = copy_night(night, league, out)
    enter(league, folder)
    before = content(league)
    bots = night.parent.parent / "bots"
    run = ["run", "--bots", str(bots), "--name", "night", "--league", str(league)]
    run += ["--out", str(out), "--games", "2", "--table-size", "2", "--jobs", "2"]

    shutil.rmtree(folder)
    code, _, err = arena(capsys, *run)
    said = _one_line(err)
    assert code == 1 and "Traceback" not in err
    assert said.startswith("arena run: the league "), said
    assert "already holds a tournament named 'night'" in said
    assert "6 games) from another run" in said
    assert f"arena league remove night --league {league}" in said or kind == "postgres"
    assert "or run under another --name" in said
    assert not folder.exists()  # nothing laid out, no bot started
    assert content(league) == before

    # The way out: the old run taken out of the league, the name runs again, and the
    # league holds the new run's games, exactly as its folder does.
    assert arena(capsys, "league", "remove", "night", "--league", str(league))[0] == 0
    code, _, err = arena(capsys, *run)
    assert code == 0, err
    assert info_of(folder)["run_id"] != info_of(night)["run_id"]
    _league_equals_folder(league, folder)
    assert arena(capsys, "league", "check", "--league", str(league), "--results", str(out))[0] == 0


@pytest.mark.parametrize("kind", KINDS)
def test_a_resume_of_the_run_the_league_holds_goes_on(
    kind: str, night: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    league = league_at(kind, tmp_path, request)
    folder = copy_night(night, league, tmp_path / "out", keep=3)
    enter(league, folder)
    summary = resume(folder, league)
    assert (summary.status, summary.games) == ("finished", 6)
    _league_equals_folder(league, folder)


def test_a_resume_of_another_run_under_the_name_is_refused(
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    league = league_at("sqlite", tmp_path, request)
    folder = copy_night(night, league, tmp_path / "out", keep=3)
    enter(league, folder)
    before = content(league)
    write_info(folder, run_id="0f" * 16)  # the folder is another run than the league's
    code, _, err = arena(capsys, "run", "--resume", str(folder), "--league", str(league))
    said = _one_line(err)
    assert code == 1 and "Traceback" not in err
    assert "holds another run under the name 'night'" in said, said
    assert f"take that one out with `arena league remove night --league {league}`" in said
    assert content(league) == before
    assert len((folder / "games.jsonl").read_text().splitlines()) == 3


@pytest.mark.parametrize("kind", KINDS)
def test_a_lost_games_file_is_refused_on_resume_and_the_way_out_replays_its_games(
    kind: str,
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    league = league_at(kind, tmp_path, request)
    folder = copy_night(night, league, tmp_path / "out")
    enter(league, folder)
    before = content(league)
    (folder / "games.jsonl").write_text("")  # lost, and made again empty
    code, _, err = arena(capsys, "run", "--resume", str(folder), "--league", str(league))
    said = _one_line(err)
    assert code == 1 and "Traceback" not in err
    assert f"holds 6 games of night that {folder / 'games.jsonl'} lacks" in said, said
    assert "Restore it from a backup and resume" in said
    assert "arena league remove night --league" in said
    assert content(league) == before
    assert (folder / "games.jsonl").read_text() == ""

    assert arena(capsys, "league", "remove", "night", "--league", str(league))[0] == 0
    summary = resume(folder, league)
    assert (summary.status, summary.games) == ("finished", 6)
    _league_equals_folder(league, folder)


def test_a_game_the_folder_records_otherwise_is_an_error_naming_both(
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    league = league_at("sqlite", tmp_path, request)
    folder = copy_night(night, league, tmp_path / "out", keep=4)
    enter(league, folder)
    before = content(league)
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    game, ranking = lines[1]["game"], lines[1]["ranking"]
    lines[1]["ranking"] = ranking[::-1]
    (folder / "games.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    code, _, err = arena(capsys, "run", "--resume", str(folder), "--league", str(league))
    said = _one_line(err)
    assert code == 1 and "Traceback" not in err
    league_said = json.dumps(ranking, separators=(",", ":"))
    folder_said = json.dumps(ranking[::-1], separators=(",", ":"))
    assert f"({game}, league vs folder: ranking {league_said} vs {folder_said})" in said, said
    assert content(league) == before
