"""`arena league check`: the league against its results folders, every difference on a line
of its own and a non-zero exit when there is any; none, and 0, when they agree. On SQLite
(its folder found beside the file) and on PostgreSQL (`--results`)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from truth_harness import arena, content, copy_night, enter, league_at, write_info

from arena.records import GameLine
from arena.store import open_store
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.results.lock import FolderLock


def _lines(folder: Path) -> list[GameLine]:
    return list(TournamentFolder(folder).games())


def _write_lines(folder: Path, lines: list[GameLine]) -> None:
    text = "".join(json.dumps(line.to_json()) + "\n" for line in lines)
    (folder / "games.jsonl").write_text(text)


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_check_says_every_difference_on_a_line_and_none_when_they_agree(
    kind: str,
    night: Path,
    tmp_path: Path,
    request: pytest.FixtureRequest,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "out"
    league = league_at(kind, tmp_path, request)
    check = ["league", "check", "--league", str(league)]
    if kind == "postgres":
        check += ["--results", str(out)]  # a file's folder is beside it; a database's is not
    folders = {name: copy_night(night, league, out, name) for name in ("night", "other")}
    for folder in folders.values():
        enter(league, folder)

    code, said, err = arena(capsys, *check)
    assert (code, err) == (0, "")
    assert "agrees with its folders: 2 tournaments, 12 games." in " ".join(said.split())

    # The folder lost its last game and records its second otherwise; the league lacks its
    # first. A folder the league has not heard of, a tournament with no folder, and another
    # run under a folder's name.
    lines = _lines(folders["night"])
    changed = dataclasses.replace(lines[1], ranking=lines[1].ranking[::-1])
    _write_lines(folders["night"], [lines[0], changed, *lines[2:5]])
    store = open_store(league)
    try:
        store.remove_tournament("night")
        enter_info = TournamentFolder(folders["night"]).info()
        store.add_tournament("night", enter_info.to_json(), started=enter_info.created)
        for line in lines[1:]:
            store.add_game("night", line)
        store.add_tournament("gone", {"id": "gone", "run_id": "9" * 32})
        store.add_game("gone", lines[0])
    finally:
        store.close()
    copy_night(night, league, out, "unheard")
    write_info(folders["other"], run_id="0f" * 16)

    before = content(league)
    code, said, err = arena(capsys, *check)
    assert code == 1 and err == "", err
    journal = folders["night"] / "games.jsonl"
    ranked = [
        json.dumps(list(r), separators=(",", ":")) for r in (lines[1].ranking, changed.ranking)
    ]
    expected = {
        f"night: game {lines[0].game} is in {journal}, not in the league",
        f"night: game {lines[1].game} differs, league vs folder: "
        f"ranking {ranked[0]} vs {ranked[1]}",
        f"night: game {lines[5].game} is in the league, not in {journal}",
        "other: the league holds another run of that name",
        f"unheard: {out / 'unheard'} has 6 games; the league has none",
        f"gone: in the league (1 games), with no folder under {out}",
    }
    printed = said.splitlines()
    assert len(printed) == len(expected) + 1, said  # one line each, then what to do
    for line in expected:
        assert sum(p.strip().startswith(line) for p in printed) == 1, (line, said)
    assert f"differs from its folders: {len(expected)} differences above" in printed[-1]
    assert "arena league rebuild" in printed[-1]
    assert content(league) == before  # a check changes nothing


def test_a_folder_being_played_is_not_compared_and_the_check_says_so(
    night: Path, tmp_path: Path, request: pytest.FixtureRequest, capsys: pytest.CaptureFixture[str]
) -> None:
    league = league_at("sqlite", tmp_path, request)
    folder = copy_night(night, league, tmp_path / "out")
    enter(league, folder)
    lock = FolderLock.take(folder)
    try:
        code, said, _ = arena(capsys, "league", "check", "--league", str(league))
    finally:
        lock.release()
    assert code == 1
    assert said.splitlines()[0].strip().startswith("night: not compared:"), said
    assert arena(capsys, "league", "check", "--league", str(league))[0] == 0


def test_checking_a_league_that_is_not_there_makes_none(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = tmp_path / "results" / "league.sqlite"
    code, _, err = arena(capsys, "league", "check", "--league", str(league))
    assert code == 1
    assert err.startswith(f"arena league: there is no league store at {league}"), err
    assert not league.parent.exists()
