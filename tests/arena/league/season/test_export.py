"""`arena league export`: every game of the league as a JSON line with its replay's fields,
named across the league, chosen by kind, time and author; a game whose replay is gone said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from truth_harness import arena, copy_night, enter, write_info

from arena.records import Replay


def _league(night: Path, tmp: Path) -> Path:
    """A league of a night and a ladder round (the same games under another name)."""
    league = tmp / "out" / "league.sqlite"
    for name in ("night", "ladder-000001"):
        enter(league, copy_night(night, league, tmp / "out", name))
    return league


def _exported(text: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in text.splitlines()]


def test_every_game_is_a_replay_line_named_across_the_league(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = _league(night, tmp_path)
    code, out, err = arena(capsys, "league", "export", "--league", str(league))
    assert code == 0, err
    games = _exported(out)
    assert len(games) == 12 and "Exported 12 games." in err
    ids = [f"{g['tournament']}/{g['game']}" for g in games]
    assert len(set(ids)) == 12  # each game's own id repeats; the league's does not
    replay = Replay.from_json(games[0])
    on_disk = json.loads(
        (
            tmp_path
            / "out"
            / games[0]["tournament"]
            / "replays"  # type: ignore[operator]
            / f"{replay.game}.json"
        ).read_text()
    )
    assert {k: v for k, v in games[0].items() if k != "tournament"} == {
        k: v for k, v in on_disk.items() if k != "tournament"
    }
    code, out, _ = arena(capsys, "league", "export", "--league", str(league), "--ladder")
    assert {g["tournament"] for g in _exported(out)} == {"ladder-000001"}
    code, out, _ = arena(capsys, "league", "export", "--league", str(league), "--nights")
    assert {g["tournament"] for g in _exported(out)} == {"night"}


def test_games_are_chosen_by_author_and_time_and_a_lost_replay_is_said(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = _league(night, tmp_path)
    _, out, _ = arena(capsys, "league", "export", "--league", str(league))
    everyone = _exported(out)
    author = str(everyone[0]["players"][0])  # type: ignore[index]
    _, out, _ = arena(capsys, "league", "export", "--league", str(league), "--author", author)
    mine = _exported(out)
    assert mine and len(mine) < len(everyone)
    assert all(author in g["players"] for g in mine)  # type: ignore[operator]
    _, out, _ = arena(capsys, "league", "export", "--league", str(league), "--since", "2999-01-01")
    assert out == ""
    lost = tmp_path / "out" / "night" / "replays" / f"{everyone[0]['game']}.json"
    lost.unlink()
    target = tmp_path / "all.jsonl"
    code, _, err = arena(capsys, "league", "export", "--league", str(league), "--to", str(target))
    assert code == 1
    assert f"night/{everyone[0]['game']}: its replay cannot be read" in err
    assert len(target.read_text().splitlines()) == 11
    with pytest.raises(SystemExit) as refused:
        arena(capsys, "league", "export", "--league", str(league), "--since", "May")
    assert refused.value.code == 2 and "is not a date" in capsys.readouterr().err


def test_after_a_prune_the_league_checks_and_the_export_says_what_was_let_go(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = _league(night, tmp_path)
    seed = json.loads((night / "tournament.json").read_text())["seed"]
    for name in ("night", "ladder-000001"):
        write_info(tmp_path / "out" / name, status="finished", seed=seed)
    code, out, _ = arena(
        capsys, "league", "prune", "--league", str(league), "--before", "2999-01-01"
    )
    assert code == 0 and "Pruned 12 games in 2 tournaments" in out
    code, out, _ = arena(capsys, "league", "check", "--league", str(league))
    assert code == 0 and "agrees" in out
    code, out, err = arena(capsys, "league", "export", "--league", str(league))
    assert code == 0 and out == "" and "(12 more were pruned" in err
