"""A finished round folded into its day's record: its folder gone, its replays read back byte
for byte, verify and check as before; a kill at any step of the fold neither loses the round
nor doubles it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from truth_harness import arena, content, copy_night, enter, write_info

from arena.tournament.results import folding
from arena.tournament.results.days import INDEX, ROUNDS, all_rounds, days_folder, find_round
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.results.folding import FOLDING, GONE, fold, sweep
from arena.tournament.results.pruning import prune
from arena.tournament.results.verify import verify

ROUND = "ladder-000007"


def _round(night: Path, out: Path, name: str = ROUND) -> Path:
    """The night again as a finished ladder round in a league of its own, its games stored."""
    league = out / "league.sqlite"
    folder = copy_night(night, league, out, name)
    finished = json.loads((night / "tournament.json").read_text())
    write_info(folder, status="finished", seed=finished["seed"])
    enter(league, folder)
    return folder


def _replays(folder: Path) -> dict[str, bytes]:
    return {p.stem: p.read_bytes() for p in (folder / "replays").glob("*.json")}


def test_a_folded_round_is_replayed_verified_and_checked_without_its_folder(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    folder = _round(night, out)
    replays = _replays(folder)
    lines = list(TournamentFolder(folder).games())
    folded = fold(folder)
    assert not folder.exists() and not list(out.glob(f"*{GONE}"))
    assert folded.lines == tuple(lines) and set(folded.replays) == set(replays)
    again = find_round(out, ROUND)
    assert again is not None and again.to_json() == folded.to_json()
    assert all(again.replay_bytes(game) == data for game, data in replays.items())
    verdict = verify(out / ROUND)
    assert verdict.ok and len(verdict.games) == 6 and not any(g.pruned for g in verdict.games)
    game = sorted(replays)[0]
    code, said, err = arena(capsys, "replay", f"{ROUND}/{game}", "--results", str(out))
    assert code == 0 and game in said, err
    code, said, err = arena(capsys, "verify", str(out / ROUND))
    assert code == 0, said + err
    code, said, err = arena(capsys, "league", "check", "--league", str(out / "league.sqlite"))
    assert code == 0 and "1 tournaments, 6 games" in " ".join(said.split()), said + err


def test_a_damaged_folded_replay_fails_verify(night: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    folded = fold(_round(night, out))
    day = folded.day / "replays.z"
    data = bytearray(day.read_bytes())
    data[len(data) // 2] ^= 0xFF
    day.write_bytes(bytes(data))
    assert not verify(out / ROUND).ok


@pytest.mark.parametrize("step", ["replays", "line", "index", "rename", "remove"])
def test_a_kill_during_a_fold_neither_loses_nor_doubles_the_round(
    night: Path, tmp_path: Path, step: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    folder = _round(night, out)
    replays = _replays(folder)

    class Killed(BaseException):
        pass

    def kill(*_: object, **__: object) -> None:
        raise Killed

    def half_removed(path: Path, **_: object) -> None:
        if path.exists():  # the folder on its way out: killed with half of it gone
            (path / "tournament.json").unlink()
            raise Killed

    real_write = folding._write_all
    if step == "replays":
        monkeypatch.setattr(folding, "_append", kill)
    elif step == "line":  # the round's line torn half way

        def torn(fd: int, data: bytes, start: int) -> None:
            real_write(fd, data[: len(data) // 2], start)
            raise Killed

        monkeypatch.setattr(folding, "_write_all", torn)
    elif step == "index":
        calls = iter([real_write, kill])

        def second_killed(fd: int, data: bytes, start: int) -> None:
            next(calls)(fd, data, start)

        monkeypatch.setattr(folding, "_write_all", second_killed)
    elif step == "rename":
        monkeypatch.setattr(folding.os, "rename", kill)
    else:
        monkeypatch.setattr(folding.shutil, "rmtree", half_removed)
    with pytest.raises(Killed):
        fold(folder)
    monkeypatch.undo()
    if step in ("replays", "line", "index"):
        assert (folder / FOLDING).is_file() and (folder / "tournament.json").is_file()
    if folder.is_dir():  # started again: the round's folder is still there, folded again
        fold(folder)
    sweep(out)
    assert not folder.exists() and not list(out.glob(f"*{GONE}"))
    rounds = list(all_rounds(out))
    assert [r.id for r in rounds] == [ROUND]  # once, whatever the step
    index = (days_folder(out) / INDEX).read_text().splitlines()
    assert [line.split()[0] for line in index] == [ROUND]
    assert (rounds[0].day / ROUNDS).read_bytes().endswith(b"\n")
    found = find_round(out, ROUND)
    assert found is not None and all(found.replay_bytes(g) == d for g, d in replays.items())
    assert verify(out / ROUND).ok


def test_a_round_not_finished_is_never_folded(night: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    folder = copy_night(night, out / "league.sqlite", out, ROUND)
    with pytest.raises(folding.ResultsError, match="has not finished"):
        fold(folder)
    assert (folder / "tournament.json").is_file() and not list(all_rounds(out))


def test_a_pruned_day_keeps_its_results_and_verify_says_its_games_were_pruned(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    folded = fold(_round(night, out))
    last = max(line.started or 0.0 for line in folded.lines)
    assert prune([out], before=last).games == 0  # a game of the day began after: kept whole
    done = prune([out], before=last + 1)
    assert (done.tournaments, done.games) == (1, 6) and done.bytes > 0
    assert not (folded.day / "replays.z").exists() and not (folded.day / "logs.z").exists()
    verdict = verify(out / ROUND)
    assert verdict.ok and all(g.pruned for g in verdict.games)
    code, said, err = arena(capsys, "league", "check", "--league", str(out / "league.sqlite"))
    assert code == 0, said + err
    assert prune([out], before=last + 1).games == 0  # once


def test_a_days_later_rounds_are_read_against_its_first(night: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _round(night, out)
    second = copy_night(night, out / "league.sqlite", out, "ladder-000008")
    finished = json.loads((night / "tournament.json").read_text())
    write_info(second, status="finished", seed=finished["seed"])
    enter(out / "league.sqlite", second)
    replays = _replays(second)
    fold(first)
    folded = fold(second)
    assert folded.primed and folded.day == find_round(out, ROUND).day  # type: ignore[union-attr]
    lines = (folded.day / ROUNDS).read_bytes().splitlines()
    assert len(lines) == 2 and len(lines[1]) < len(lines[0]) / 2  # what repeats is not kept
    again = find_round(out, "ladder-000008")
    assert again is not None and all(again.replay_bytes(g) == d for g, d in replays.items())
    assert verify(out / "ladder-000008").ok and verify(out / ROUND).ok


def test_a_league_rebuilt_takes_in_the_folded_rounds(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    fold(_round(night, out))
    league = str(out / "league.sqlite")
    before = content(league)
    code, said, err = arena(capsys, "league", "rebuild", "--league", league, "--results", str(out))
    assert code == 0, said + err
    assert content(league) == before
    code, said, err = arena(capsys, "league", "check", "--league", league)
    assert code == 0, said + err


def test_a_link_or_a_pipe_in_the_logs_folder_is_never_followed(night: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    folder = _round(night, out)
    secret = tmp_path / "secret.txt"
    secret.write_text("not the bot's")
    (folder / "logs" / "link.log").symlink_to(secret)
    os.mkfifo(folder / "logs" / "pipe.log")
    folded = fold(folder)  # a pipe opened for reading would wait here for a writer
    assert "link.log" not in folded.logs and "pipe.log" not in folded.logs
    assert folded.logs  # the bots' own logs are kept


@pytest.mark.parametrize(
    ("kept", "torn"),
    [
        (b"", b""),
        (b"one\ntwo\n", b""),
        (b"one\ntwo\n", b"thr"),
        (b"one\n", b"x" * (3 * folding.WHOLE_CHUNK + 5)),  # torn across several chunks
        (b"", b"no line ends" * 10_000),
    ],
)
def test_a_torn_last_line_is_cut_back_to_the_last_whole_one(
    tmp_path: Path, kept: bytes, torn: bytes
) -> None:
    path = tmp_path / "record"
    path.write_bytes(kept + torn)
    assert folding._whole(path) == len(kept)
    assert path.read_bytes() == kept
    assert folding._whole(tmp_path / "none") == 0


def test_a_fold_reads_its_days_record_and_index_from_their_ends_alone(
    night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read whole, a day's record made each fold cost the day's games (40 MB a round by a
    day of 140,000 games)."""
    out = tmp_path / "out"
    fold(_round(night, out, "ladder-000001"))
    read: list[str] = []
    read_bytes = Path.read_bytes

    def spied(self: Path) -> bytes:
        read.append(self.name)
        return read_bytes(self)

    monkeypatch.setattr(Path, "read_bytes", spied)
    fold(_round(night, out, "ladder-000002"))
    assert ROUNDS not in read and INDEX not in read
    assert [r.id for r in all_rounds(out)] == ["ladder-000001", "ladder-000002"]
