"""A tournament's records stay true: one runner, each game once, clear lines for every failure.

Most tests start from one small finished tournament (three bots, tables of
two: six games), copy its folder, damage the copy the way a crash, a full
disk or a meddler would, and resume or verify it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from league_harness import opened_databases
from tournament_harness import Recorder, arena_process, copy_bots, finish, lines_of
from truth_harness import play_night

from arena.cli.main import main
from arena.records import GameLine
from arena.store import LeagueStore, SqliteStore
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.results.folder import TournamentFolder
from arena.tournament.tournament import Tournament


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play_night(tmp_path_factory.mktemp("integrity"))


def _info(folder: Path) -> dict[str, Any]:
    return json.loads((folder / "tournament.json").read_text())  # type: ignore[no-any-return]


def _write_info(folder: Path, **changes: Any) -> None:
    (folder / "tournament.json").write_text(json.dumps(_info(folder) | changes))


def copy_of(finished: Path, tmp: Path, keep: int | None = None) -> Path:
    """The tournament again, in a league of its own, unfinished, with its first `keep` games."""
    folder = tmp / "out" / finished.name
    shutil.copytree(finished, folder)
    _write_info(folder, league=str(tmp / "league.sqlite"), status="interrupted", seed=None)
    if keep is not None:
        lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)
        (folder / "games.jsonl").write_text("".join(lines[:keep]))
    return folder


def resume(folder: Path) -> tuple[Any, Recorder]:
    recorder = Recorder()
    config = TournamentConfig(bots_dir=None, out=folder.parent)
    return asyncio.run(Tournament(config, recorder).run(resume=folder)), recorder


def store_ids(folder: Path) -> set[str]:
    store = SqliteStore(Path(_info(folder)["league"]))
    try:
        return {line.game for _, line in store.lines([_info(folder)["id"]])}
    finally:
        store.close()


def planned_ids(folder: Path) -> set[str]:
    return {g.game_id for g in TournamentFolder(folder).schedule(TournamentFolder(folder).info())}


# -- games.jsonl: duplicates, forgeries, garbage ----------------------------------------


@pytest.mark.slow
def test_a_duplicated_and_a_forged_line_are_reported_and_ignored(
    finished: Path, tmp_path: Path
) -> None:
    folder = copy_of(finished, tmp_path, keep=3)
    lines = lines_of(folder)
    with (folder / "games.jsonl").open("a") as out:
        out.write(json.dumps(lines[0]) + "\n")
        forged = dict(lines[1], game="u042-t000-r0", ranking=lines[1]["ranking"][::-1])
        out.write(json.dumps(forged) + "\n")
    summary, recorder = resume(folder)
    assert (summary.status, summary.games, summary.total) == ("finished", 6, 6)
    assert f"games.jsonl line 4: a second copy of {lines[0]['game']}; ignored" in recorder.notes
    assert "games.jsonl line 5: u042-t000-r0 is no game of the schedule; ignored" in recorder.notes
    # Each game once, in the leaderboard and the league: the forgery nowhere.
    assert store_ids(folder) == planned_ids(folder)
    board = json.loads((folder / "leaderboard.json").read_text())
    assert sum(row["games"] for row in board) == 6 * 2


def test_a_garbage_line_in_the_middle_is_named_not_a_traceback(
    finished: Path, tmp_path: Path
) -> None:
    folder = copy_of(finished, tmp_path)
    lines = (folder / "games.jsonl").read_text().splitlines(keepends=True)
    for garbage in ("{}\n", "\x00\x01 garbage\n"):
        (folder / "games.jsonl").write_text("".join([*lines[:2], garbage, *lines[2:]]))
        with pytest.raises(TournamentError, match=r"games.jsonl, line 3, is not"):
            resume(folder)
    assert not (tmp_path / "league.sqlite").exists() or store_ids(folder) == set()


# -- replays ----------------------------------------------------------------------------


def test_missing_and_damaged_replays_are_reported_on_resume(finished: Path, tmp_path: Path) -> None:
    folder = copy_of(finished, tmp_path)
    first, second = (line["game"] for line in lines_of(folder)[:2])
    (folder / "replays" / f"{first}.json").unlink()
    (folder / "replays" / f"{second}.json").write_text("{")
    summary, recorder = resume(folder)
    assert summary.status == "finished"
    assert any(n.startswith(f"the replay of {first} is missing") for n in recorder.notes)
    assert any(n.startswith(f"the replay of {second} is damaged") for n in recorder.notes)
    replays = [n for n in recorder.notes if n.startswith("the replay of ")]
    assert len(replays) == 2  # told once each, not again at the end


# -- the league store -------------------------------------------------------------------


@pytest.mark.slow
def test_a_full_league_store_stops_cleanly_with_no_false_faults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = LeagueStore.add_tournament
    opened = opened_databases(monkeypatch)

    def then_full(
        self: LeagueStore, tournament_id: str, info: dict[str, Any], started: float | None = None
    ) -> None:
        real(self, tournament_id, info, started)
        db = opened[str(self.path)]
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")  # no room for a page more

    monkeypatch.setattr(LeagueStore, "add_tournament", then_full)
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        table_size=2,
        games=60,
        jobs=3,
        name="full",
    )
    with pytest.raises(TournamentError) as error:
        asyncio.run(Tournament(config, Recorder()).run())
    message = str(error.value)
    assert "database or disk is full" in message
    assert f"arena run --resume {tmp_path / 'out' / 'full'}" in message
    folder = tmp_path / "out" / "full"
    lines = lines_of(folder)
    assert 0 < len(lines) < 60
    assert all(line["faults"] == [] for line in lines), "a store error was charged to a bot"
    assert _info(folder)["status"] == "interrupted"

    monkeypatch.undo()
    summary, _ = resume(folder)
    assert (summary.status, summary.games) == ("finished", 60)
    assert store_ids(folder) == planned_ids(folder)
    assert Counter(x["game"] for x in lines_of(folder)) == Counter(planned_ids(folder))


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["truncated", "scribbled", "empty"])
def test_a_damaged_store_says_so_and_rebuild_restores_every_game(
    finished: Path, tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_of(finished, tmp_path, keep=4)
    resume(folder)  # plays the last two: the league holds all six
    league = tmp_path / "league.sqlite"
    data = league.read_bytes()
    league.write_bytes(
        {
            "truncated": data[: len(data) // 2],
            "scribbled": data[:100] + b"\xa5" * (len(data) - 100),
            "empty": b"",
        }[damage]
    )
    _write_info(folder, status="interrupted", seed=None)
    capsys.readouterr()
    for argv in (
        ["leaderboard", "--league", str(league)],
        ["run", "--resume", str(folder)],
        [
            "run",
            "--bots",
            str(finished.parent.parent / "bots"),
            "--league",
            str(league),
            "--out",
            str(tmp_path / "out2"),
        ],
    ):
        assert main(argv) == 1
        err = capsys.readouterr().err
        assert "Traceback" not in err
        assert err.startswith(f"arena {argv[0]}: the league store {league}"), err
        assert "arena league rebuild" in " ".join(err.split()), err
    assert not (tmp_path / "out2").exists()  # refused before anything was made

    assert (
        main(["league", "rebuild", "--league", str(league), "--results", str(folder.parent)]) == 0
    )
    out = capsys.readouterr().out
    assert "night: 6 games" in out
    assert store_ids(folder) == planned_ids(folder)
    assert main(["leaderboard", "--league", str(league), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sum(row["games"] for row in rows) == 6 * 2


def test_league_remove_takes_a_tournament_out_and_rerates(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_of(finished, tmp_path)
    resume(folder)
    league = tmp_path / "league.sqlite"
    store = SqliteStore(league)
    store.add_tournament("other", {})
    store.add_game(
        "other",
        GameLine("x", 0, ("bold", "meek"), ("meek", "bold"), faults=(), think_ms={}),
    )
    store.close()
    assert main(["league", "remove", "night", "--league", str(league)]) == 0
    assert "Removed night (6 games)" in capsys.readouterr().out
    assert main(["leaderboard", "--league", str(league), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["bot"], r["games"]) for r in rows} == {("meek", 1), ("bold", 1)}
    assert main(["league", "remove", "night", "--league", str(league)]) == 1


# -- verify -----------------------------------------------------------------------------


def test_verify_passes_an_honest_folder_and_catches_a_tampered_replay(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "-v", str(finished)]) == 0
    out = capsys.readouterr().out
    assert out.count("deals match the seed") == 6
    assert "every deal of its 6 games is the seed's" in out

    folder = tmp_path / "night"
    shutil.copytree(finished, folder)
    game = lines_of(folder)[0]["game"]
    path = folder / "replays" / f"{game}.json"
    replay = json.loads(path.read_text())
    hand = replay["events"][0]["hands"][1]
    hand[0] = hand[0] % 6 + 1  # one die changed after the fact
    path.write_text(json.dumps(replay))
    assert main(["verify", "-v", str(folder)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL {game}: round 1, {replay['players'][1]} (seat 1): the replay shows" in out
    assert out.count("deals match the seed") == 5

    other = lines_of(folder)[1]["game"]
    path.write_text(json.dumps(dict(replay, deal_key=other)))  # dealt as another game
    assert main(["verify", str(folder)]) == 1
    assert f"FAIL {game}: dealt as '{other}', but the schedule deals it as '{game}'" in (
        capsys.readouterr().out
    )
    hand.pop()  # a die fewer: the first dice of a hand are still the seed's
    path.write_text(json.dumps(replay))
    assert main(["verify", str(folder)]) == 1
    assert "the seed deals" in capsys.readouterr().out

    # A game ended by a fault, replayed through the rules: still the seed's.
    shutil.copy(finished / "replays" / f"{game}.json", path)
    replay = json.loads(path.read_text())
    first_action = next(i for i, e in enumerate(replay["events"]) if "action" in e)
    faulty = 1 - replay["events"][first_action]["seat"]  # the next to act, of two
    replay["events"][first_action + 1 :] = [
        {"seat": faulty, "fault": "timeout", "detail": "too slow", "sent": ""}
    ]
    winner = replay["players"][1 - faulty]
    replay["ranking"] = [winner, replay["players"][faulty]]
    path.write_text(json.dumps(replay))
    rewritten = [
        dict(x, ranking=replay["ranking"]) if x["game"] == game else x for x in lines_of(folder)
    ]
    (folder / "games.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rewritten))
    assert main(["verify", str(folder)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    # ... but not with another result than those deals and actions give.
    reversed_ranking = replay["ranking"][::-1]
    path.write_text(json.dumps(dict(replay, ranking=reversed_ranking)))
    rewritten = [dict(x, ranking=reversed_ranking) if x["game"] == game else x for x in rewritten]
    (folder / "games.jsonl").write_text("".join(json.dumps(x) + "\n" for x in rewritten))
    assert main(["verify", str(folder)]) == 1
    assert f"its deals and actions finish {replay['ranking']}" in capsys.readouterr().out

    _write_info(folder, seed="00" * 32)  # another seed than the one committed to
    assert main(["verify", str(folder)]) == 1
    assert "does not hash to the commitment" in capsys.readouterr().out

    _write_info(folder, seed=None, status="interrupted")
    assert main(["verify", str(folder)]) == 1
    assert "has not finished" in capsys.readouterr().err


# -- server tournaments -----------------------------------------------------------------


def test_run_resume_refuses_a_server_tournament(
    finished: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = copy_of(finished, tmp_path, keep=2)
    _write_info(folder, server=True)
    assert main(["run", "--resume", str(folder)]) == 1
    err = " ".join(capsys.readouterr().err.split())
    assert f"resume it there with: arena admin start --resume {folder}" in err
    assert len(lines_of(folder)) == 2


# -- processes: two runners, a kill before play, a full disk ----------------------------


def _until(check: Any, what: str, process: subprocess.Popen[bytes], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert process.poll() is None, f"the arena ended before {what}"
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        time.sleep(0.02)


def _run_args(bots: Path, out: Path, games: int = 12) -> list[str]:
    return [
        "run",
        "--bots",
        str(bots),
        "--out",
        str(out),
        "--name",
        "t",
        "--games",
        str(games),
        "--table-size",
        "2",
        "--jobs",
        "2",
    ]


@pytest.mark.slow
def test_a_second_runner_on_one_folder_is_refused_and_games_stay_unique(tmp_path: Path) -> None:
    # Slow bots (0.05 s a decision: about a minute of play) keep each runner going while the
    # next is refused; the delay is written into the bots, whose environment is the arena's.
    bots = copy_bots(tmp_path / "bots", delay=0.05)
    folder = tmp_path / "out" / "t"
    log = tmp_path / "arena.log"

    def refused_by(holder: subprocess.Popen[bytes]) -> None:
        second_log = tmp_path / "second.log"
        second = arena_process("run", "--resume", str(folder), log=second_log)
        assert finish(second, second_log) == 1
        said = " ".join(second_log.read_text().split())
        assert f"being played by another arena (pid {holder.pid})" in said, said
        assert "Traceback" not in said

    def holds_lock(holder: subprocess.Popen[bytes]) -> bool:
        return (folder / "arena.lock").read_text().strip() == str(holder.pid)

    runners = [arena_process(*_run_args(bots, tmp_path / "out", games=60), log=log)]
    try:
        _until(lambda: (folder / "games.jsonl").exists() and lines_of(folder), "a game", runners[0])
        refused_by(runners[0])  # a resume while the original runs
        os.killpg(runners[0].pid, signal.SIGKILL)
        runners[0].wait()
        runners.append(arena_process("run", "--resume", str(folder), log=log))
        _until(lambda: holds_lock(runners[1]), "the resume holds the folder", runners[1])
        refused_by(runners[1])  # two resumes at once
        os.killpg(runners[1].pid, signal.SIGINT)
        assert finish(runners[1], log) == 130, log.read_text()[-2000:]
        copy_bots(bots)  # the last runner plays the rest at full speed
        runners.append(arena_process("run", "--resume", str(folder), log=log))
        assert finish(runners[2], log) == 0, log.read_text()[-2000:]
    finally:
        for runner in runners:
            if runner.poll() is None:
                os.killpg(runner.pid, signal.SIGKILL)
                runner.wait()
    ids = Counter(x["game"] for x in lines_of(folder))
    assert ids == Counter(planned_ids(folder))  # each game once


@pytest.mark.slow
def test_a_kill_during_the_build_leaves_a_folder_that_resumes(tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots", ("bold", "meek"))
    slow = bots / "slow"
    slow.mkdir()
    shutil.copy(bots / "bold.py", slow / "bot.py")
    marker = slow / "built-once"  # in its own folder: a sandboxed build may write nowhere else
    (slow / "build.py").write_text(
        "import pathlib, time\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n    marker.touch()\n    time.sleep(120)\n"
    )
    (slow / "bot.toml").write_text(
        'name = "slow"\nrun = "python bot.py"\nbuild = "python build.py"\n'
    )
    log = tmp_path / "arena.log"
    process = arena_process(*_run_args(bots, tmp_path / "out", games=6), log=log)
    try:
        _until(marker.exists, "the build began", process)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    folder = tmp_path / "out" / "t"
    assert "entrants" not in _info(folder)
    resumed = arena_process("run", "--resume", str(folder), log=log)
    assert finish(resumed, log) == 0, log.read_text()[-2000:]
    assert _info(folder)["status"] == "finished"
    assert sorted(_info(folder)["entrants"]) == ["bold", "meek", "slow"]
    assert Counter(x["game"] for x in lines_of(folder)) == Counter(planned_ids(folder))


@pytest.fixture
def small_disk(tmpfs: Callable[[str], Path]) -> Path:
    return tmpfs("256k")


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_resume_finishes_once_space_is_freed(
    tmp_path: Path, small_disk: Path
) -> None:
    bots = copy_bots(tmp_path / "bots")
    out = small_disk / "out"
    log = tmp_path / "arena.log"
    args = [*_run_args(bots, out, games=120), "--league", str(tmp_path / "league.sqlite")]
    process = arena_process(*args, log=log)
    assert finish(process, log) == 1
    said = " ".join(log.read_text().split())  # unwrapped
    assert "Traceback" not in said, said
    folder = out / "t"
    assert f"arena run: cannot write {folder} while recording game" in said, said
    assert "(No space left on device); the disk is full: free some space." in said
    assert f"continue with: arena run --resume {folder}" in said
    done = lines_of(folder)
    assert 0 < len(done) < 120
    assert (folder / "games.jsonl").read_bytes().endswith(b"\n")
    assert all(x["faults"] == [] for x in done)

    # Free the space: the replays go to a bigger disk, as an organiser would move them.
    subprocess.run(["mount", "-o", "remount,size=64m", str(small_disk)], check=True)
    resumed = arena_process("run", "--resume", str(folder), log=log)
    assert finish(resumed, log) == 0, log.read_text()[-2000:]
    assert not list(folder.rglob("*.tmp"))
    assert Counter(x["game"] for x in lines_of(folder)) == Counter(planned_ids(folder))
    assert store_ids(folder) == planned_ids(folder)


@pytest.mark.slow
def test_a_folder_stopped_before_play_is_reused_by_a_run_of_its_name(tmp_path: Path) -> None:
    config = TournamentConfig(
        bots_dir=copy_bots(tmp_path / "bots"),
        out=tmp_path / "out",
        name="again",
        table_size=4,
        games=2,
    )
    with pytest.raises(TournamentError, match="--table-size 4 does not fit 3 entrants"):
        asyncio.run(Tournament(config, Recorder()).run())
    summary = asyncio.run(Tournament(dataclasses.replace(config, table_size=3), Recorder()).run())
    assert (summary.folder, summary.status) == (tmp_path / "out" / "again", "finished")
    with pytest.raises(TournamentError, match="already exists; use --resume"):
        asyncio.run(Tournament(config, Recorder()).run())


# -- a folder the arena cannot resume ---------------------------------------------------


@pytest.mark.parametrize("damage", ["missing", "garbled"])
def test_a_resume_without_its_seed_is_one_clear_error(
    finished: Path, tmp_path: Path, damage: str
) -> None:
    folder = copy_of(finished, tmp_path, keep=2)
    secret = folder / "seed.secret"
    if damage == "missing":
        secret.unlink()
    else:
        secret.write_text("not hex at all\n")
    with pytest.raises(TournamentError, match=r"seed\.secret cannot be read .* cannot resume"):
        resume(folder)
    assert len(lines_of(folder)) == 2  # nothing played, nothing lost
