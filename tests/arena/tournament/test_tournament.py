"""Tournaments end to end: real bots, a real referee, results checked from the files.

The bots are the deterministic scripts in tournament_bots/ (their choices
depend only on what they observe), so two runs from one seed play the same
games: that is what lets a crashed-and-resumed run be compared with an
uninterrupted one.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import dataclasses
import hashlib
import io
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tournament_harness import (
    GOOD,
    Recorder,
    arena_process,
    children_of,
    copy_bots,
    finish,
    lines_of,
    wait_gone,
)

import engine
from arena.bots.manifest import load_entry
from arena.cli.main import main
from arena.records import GameLine
from arena.store import SqliteStore
from arena.tournament.config import TournamentConfig, TournamentError
from arena.tournament.report.ratings import rate_all, result_of
from arena.tournament.schedule.round_robin import build
from arena.tournament.tournament import Summary, Tournament

# -- one tournament, played in this process, checked from every side ------------------


@dataclass
class Played:
    root: Path
    folder: Path
    summary: Summary
    recorder: Recorder
    pids: list[int]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    root = tmp_path_factory.mktemp("e2e")
    config = TournamentConfig(
        bots_dir=copy_bots(root / "bots"),
        out=root / "out",
        games=4,  # one table of three, three rotations a unit: two units, six games
        jobs=3,
        move_time=10.0,  # the bots answer at once: a limit no loaded machine can miss
        connect_timeout=60,
        name="e2e",
    )
    recorder = Recorder()
    tournament = Tournament(config, recorder)
    summary = asyncio.run(tournament.run())
    pids = list(tournament.process_ids.values())
    assert len(pids) == 3
    return Played(root, root / "out" / "e2e", summary, recorder, pids)


def test_the_tournament_finishes_and_publishes_its_seed(played: Played) -> None:
    info = json.loads((played.folder / "tournament.json").read_text())
    assert info["status"] == "finished"
    assert played.summary.status == "finished"
    seed = bytes.fromhex(info["seed"])
    assert hashlib.sha256(seed).hexdigest() == info["seed_sha256"]
    assert played.summary.seed_hex == info["seed"]
    assert info["entrants"] == list(GOOD)
    assert info["table_size"] == 3  # every entrant, up to six
    for name in GOOD:
        spec = load_entry(played.root / "bots" / f"{name}.py")
        assert spec is not None
        assert info["bots"][name]["files_sha256"] == spec.files_hash
    assert played.recorder.notes == info["isolation"]  # how the bots were kept apart, only


def test_every_scheduled_game_is_played_once(played: Played) -> None:
    info = json.loads((played.folder / "tournament.json").read_text())
    schedule = build(
        info["entrants"], info["table_size"], info["games"], bytes.fromhex(info["seed"])
    )
    assert len(schedule) == 6
    lines = lines_of(played.folder)
    assert Counter(line["game"] for line in lines) == Counter(g.game_id for g in schedule)
    by_id = {g.game_id: g for g in schedule}
    for line in lines:
        game = by_id[line["game"]]
        assert (line["index"], tuple(line["players"]), line["deal_key"]) == (
            game.index,
            game.players,
            game.deal_key,
        )
        assert sorted(line["ranking"]) == sorted(line["players"])
        assert line["faults"] == []
    assert played.summary.games == played.summary.total == 6


def test_each_game_has_a_replay_with_deals_and_actions(played: Played) -> None:
    for line in lines_of(played.folder):
        replay = json.loads((played.folder / "replays" / f"{line['game']}.json").read_text())
        assert replay["players"] == line["players"]
        assert replay["ranking"] == line["ranking"]
        deals = [e for e in replay["events"] if "hands" in e]
        actions = [e for e in replay["events"] if "action" in e]
        ends = [e for e in replay["events"] if "end" in e]
        assert deals and actions and ends
        assert deals[0]["round"] == 1
        assert [len(h) for h in deals[0]["hands"]] == [5, 5, 5]
        # Rounds are numbered from 1, and each dealt round ends once (no faults here).
        assert [d["round"] for d in deals] == list(range(1, len(deals) + 1))
        assert len(ends) == len(deals)
        assert all(e["ms"] >= 0 for e in actions)
    assert len(list((played.folder / "replays").iterdir())) == 6


def test_the_dice_can_be_checked_from_the_published_seed(played: Played) -> None:
    info = json.loads((played.folder / "tournament.json").read_text())
    seed = bytes.fromhex(info["seed"])
    ruleset = engine.Ruleset.from_mapping(info["ruleset"])
    keys = set()
    for line in lines_of(played.folder):
        replay = json.loads((played.folder / "replays" / f"{line['game']}.json").read_text())
        dice = engine.HmacDice(seed, replay["deal_key"])
        n = len(replay["players"])
        opener = engine.rolloff(dice, n) if ruleset.opener is engine.Opener.ROLLOFF else 0
        state = engine.new_game(ruleset, n, opener)
        deal = replay["events"][0]
        assert deal["opener"] == opener
        assert deal["hands"] == [list(h) for h in engine.roll_hands(state, dice)]
        keys.add(replay["deal_key"])
    # Each game is dealt on its own: the rotations of a table would show each bot,
    # at the end of a round, the dice it is about to be dealt from another seat.
    assert len(keys) == 6


def test_leaderboard_files_count_every_game_for_each_player(played: Played) -> None:
    lines = lines_of(played.folder)
    rows = json.loads((played.folder / "leaderboard.json").read_text())
    with (played.folder / "leaderboard.csv").open(newline="") as f:
        csv_rows = list(csv.DictReader(f))
    assert sorted(r["bot"] for r in rows) == list(GOOD)
    assert [r["bot"] for r in csv_rows] == [r["bot"] for r in rows]
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert sum(r["games"] for r in rows) == sum(len(line["players"]) for line in lines)
    for row, csv_row in zip(rows, csv_rows, strict=True):
        name = row["bot"]
        assert row["games"] == sum(name in line["players"] for line in lines)
        assert row["wins"] == sum(line["ranking"][0] == name for line in lines)
        places = [line["ranking"].index(name) + 1 for line in lines if name in line["players"]]
        assert row["average_place"] == round(sum(places) / len(places), 3)
        assert int(csv_row["games"]) == row["games"]
        assert float(csv_row["mu"]) == row["mu"]
    # The standings are the games rated in schedule order.
    typed = sorted(map(GameLine.from_json, lines), key=lambda x: x.index)
    rated = rate_all([result_of(x) for x in typed], GOOD)
    assert [r["bot"] for r in rows] == [s.name for s in rated.table()]
    assert [r["mu"] for r in rows] == [round(s.mu, 3) for s in rated.table()]


def test_the_league_store_has_exactly_those_games(played: Played) -> None:
    store = SqliteStore(played.root / "out" / "league.sqlite")
    try:
        assert {line.game for _, line in store.lines(["e2e"])} == {
            line["game"] for line in lines_of(played.folder)
        }
        assert store.tournaments() == [("e2e", 6)]
    finally:
        store.close()
    # Begun when its folder was laid out, as a rebuild from the folder records it: a league
    # orders its nights the same whether it was filled as they played or rebuilt after.
    with sqlite3.connect(played.root / "out" / "league.sqlite") as db:
        (started,) = db.execute("SELECT started FROM tournaments").fetchone()
    assert started == json.loads((played.folder / "tournament.json").read_text())["created"]


def test_the_observer_saw_the_run(played: Played) -> None:
    recorder = played.recorder
    assert len(recorder.starts) == 1
    folder, entrants, progress = recorder.starts[0]
    assert folder == played.folder
    assert entrants == list(GOOD)
    assert (progress.done, progress.total) == (0, 6)
    assert [p.done for _, p in recorder.finished] == [1, 2, 3, 4, 5, 6]
    assert {line.game for line, _ in recorder.finished} == {
        line["game"] for line in lines_of(played.folder)
    }


def test_every_bot_process_is_gone_and_logged(played: Played) -> None:
    assert wait_gone(played.pids) == []
    for name in GOOD:
        assert (played.folder / "logs" / f"{name}.log").exists()


# -- bad bots next to good ones --------------------------------------------------------


def _bad_bots(folder: Path) -> None:
    manifest = folder / "no_run"
    manifest.mkdir()
    (manifest / "bot.toml").write_text('name = "no-run"\n')
    broken = folder / "broken"
    broken.mkdir()
    (broken / "bot.toml").write_text(
        'name = "broken"\nrun = "python bot.py"\nbuild = "sh build.sh"\n'
    )
    (broken / "bot.py").write_text("raise SystemExit('never built')\n")
    (broken / "build.sh").write_text("echo compiling\necho 'fatal: out of coffee'\nexit 2\n")
    needy = folder / "needy"
    needy.mkdir()
    (needy / "bot.toml").write_text(
        'name = "needy"\nrun = "python bot.py"\nrequires = ["no-such-tool-perudo-xyz"]\n'
    )
    (folder / "sleeper.py").write_text(
        "import os, time\nprint('sleeping', os.getpid(), flush=True)\ntime.sleep(3600)\n"
    )
    (folder / "quitter.py").write_text(
        "import sys\nprint('no config here', file=sys.stderr)\nsys.exit(3)\n"
    )


@pytest.mark.slow
def test_bad_bots_are_reported_and_the_night_goes_on(tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots", ("meek", "steady"))
    _bad_bots(bots)
    recorder = Recorder()
    config = TournamentConfig(
        bots_dir=bots,
        out=tmp_path / "out",
        games=2,
        jobs=2,
        move_time=10.0,
        connect_timeout=20,  # waited out in full for the bot that never dials
        name="night",
    )
    tournament = Tournament(config, recorder)
    summary = asyncio.run(tournament.run())
    assert summary.status == "finished"
    info = json.loads((tmp_path / "out" / "night" / "tournament.json").read_text())
    assert info["entrants"] == ["meek", "steady"]
    lines = lines_of(tmp_path / "out" / "night")
    assert len(lines) == 2
    assert all(sorted(line["players"]) == ["meek", "steady"] for line in lines)
    assert all(line["faults"] == [] for line in lines)

    no_run = recorder.note_about("no_run")
    assert "skipped" in no_run and "'run'" in no_run and "missing" in no_run
    broken = recorder.note_about("broken")
    assert "exit code 2" in broken and "fatal: out of coffee" in broken
    assert "needs no-such-tool-perudo-xyz" in recorder.note_about("needy")
    sleeper = recorder.note_about("sleeper")
    assert "did not connect within 20 s" in sleeper and "sleeping" in sleeper
    quitter = recorder.note_about("quitter")
    assert "exited with code 3 before connecting" in quitter and "no config here" in quitter
    # Each bot that did not play is kept with its reason, and the summary says the same.
    skipped = {s["name"]: s["reason"] for s in info["skipped"]}
    assert sorted(skipped) == ["broken", "needy", "no_run", "quitter", "sleeper"]
    assert "fatal: out of coffee" in skipped["broken"] and "sleeping" in skipped["sleeper"]
    assert dict(summary.skipped) == skipped
    built = [n for n in recorder.notes if n.startswith("building ")]
    [said] = built  # said as it begins: builds take a while, a first one longer
    assert said.startswith("building broken (up to 300 s") and "first build here" in said
    assert recorder.builds == [("broken", True), ("broken", False)]  # a screen times it
    assert len(recorder.notes) == 6 + len(info["isolation"])

    # Everything started is stopped, the bot that never dialled included.
    pids = list(tournament.process_ids.values())
    assert sorted(tournament.process_ids) == ["meek", "quitter", "sleeper", "steady"]
    assert wait_gone(pids) == []


def test_fewer_than_two_buildable_bots(tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots", ("steady",))
    _bad_bots(bots)
    (bots / "sleeper.py").unlink()
    (bots / "quitter.py").unlink()
    recorder = Recorder()
    config = TournamentConfig(bots_dir=bots, out=tmp_path / "out", name="lonely")
    with pytest.raises(TournamentError, match=r"fewer than two bots can play \(steady\)"):
        asyncio.run(Tournament(config, recorder).run())
    assert "exit code 2" in recorder.note_about("broken")


@pytest.mark.slow
def test_fewer_than_two_connected_bots(tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots", ("steady",))
    (bots / "quitter.py").write_text("import sys\nsys.exit(4)\n")
    recorder = Recorder()
    config = TournamentConfig(bots_dir=bots, out=tmp_path / "out", name="alone", connect_timeout=90)
    tournament = Tournament(config, recorder)
    started = time.monotonic()
    with pytest.raises(TournamentError, match=r"fewer than two bots can play \(steady\)"):
        asyncio.run(tournament.run())
    assert time.monotonic() - started < 45  # a dead bot is not waited for
    assert "exited with code 4 before connecting" in recorder.note_about("quitter")
    assert wait_gone(list(tournament.process_ids.values())) == []
    # A folder that never played is started again: on resume, or by a run of its name.
    with pytest.raises(TournamentError, match=r"fewer than two bots can play \(steady\)"):
        asyncio.run(Tournament(config, Recorder()).run(resume=tmp_path / "out" / "alone"))
    (bots / "quitter.py").unlink()
    copy_bots(bots, ("meek",))
    again = dataclasses.replace(config, games=2)
    summary = asyncio.run(Tournament(again, Recorder()).run())
    assert (summary.folder, summary.status, summary.games) == (
        tmp_path / "out" / "alone",
        "finished",
        2,
    )


def test_a_missing_bots_folder_writes_nothing(tmp_path: Path) -> None:
    config = TournamentConfig(bots_dir=tmp_path / "nowhere", out=tmp_path / "out")
    with pytest.raises(TournamentError, match="nowhere"):
        asyncio.run(Tournament(config, Recorder()).run())
    assert not (tmp_path / "out").exists()


# -- crash, Ctrl-C and resume through the command line ---------------------------------


def _wait_for_games(folder: Path, count: int, process: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        path = folder / "games.jsonl"
        if path.exists():
            done = len(lines_of(folder))
            if done >= count:
                return done
        assert process.poll() is None, "the run ended before it could be interrupted"
        time.sleep(0.01)
    raise AssertionError("no games were played")


GAMES = 12
"""Two rotation units of three bots at tables of two: a kill after three games still leaves
games to resume."""


def _run_args(bots: Path, out: Path, name: str, seed: str) -> list[str]:
    return [
        "run",
        "--bots",
        str(bots),
        "--games",
        str(GAMES),
        "--table-size",
        "2",
        "--jobs",
        "2",
        "--move-time",
        "5",
        "--connect-timeout",
        "60",
        "--out",
        str(out),
        "--name",
        name,
        "--seed",
        seed,
    ]


def _arena_here(*args: str) -> tuple[int, str]:
    """`arena ARGS` through its main() in this process, for a run no test kills: its exit
    status and what it printed (its bots are still processes of their own)."""
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        code = main(list(args))
    return code, said.getvalue()


def _standings(folder: Path) -> list[dict[str, Any]]:
    rows = json.loads((folder / "leaderboard.json").read_text())
    keep = ("rank", "bot", "games", "wins", "average_place", "mu", "sigma", "faults")
    return [{k: row[k] for k in keep} for row in rows]


def _check_complete(folder: Path) -> None:
    info = json.loads((folder / "tournament.json").read_text())
    assert info["status"] == "finished"
    schedule = build(
        info["entrants"], info["table_size"], info["games"], bytes.fromhex(info["seed"])
    )
    ids = Counter(line["game"] for line in lines_of(folder))
    assert ids == Counter(g.game_id for g in schedule)  # none lost, none repeated
    assert {p.stem for p in (folder / "replays").glob("*.json")} == set(ids)
    store = SqliteStore(Path(info["league"]))
    try:
        assert {line.game for _, line in store.lines([info["id"]])} == set(ids)
    finally:
        store.close()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """An uninterrupted run: the standings a resumed run must end with."""
    root = tmp_path_factory.mktemp("reference")
    seed = os.urandom(32).hex()
    code, said = _arena_here(*_run_args(copy_bots(root / "bots"), root / "out", "t1", seed))
    assert code == 0, said[-2000:]
    _check_complete(root / "out" / "t1")
    return root / "out" / "t1", seed


def test_a_killed_run_resumes_without_losing_or_repeating_a_game(
    tmp_path: Path, reference: tuple[Path, str]
) -> None:
    reference_folder, seed = reference
    bots = copy_bots(tmp_path / "bots", delay=0.004)
    folder = tmp_path / "out" / "t1"
    log = tmp_path / "arena.log"
    process = arena_process(*_run_args(bots, tmp_path / "out", "t1", seed), log=log)
    try:
        _wait_for_games(folder, 3, process)
        bots_running = children_of(process.pid)
        assert len(bots_running) == 3
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert wait_gone(bots_running) == [], "bots outlived the arena"
    info = json.loads((folder / "tournament.json").read_text())
    assert info["status"] == "running"
    assert info["seed"] is None  # the seed stays secret until the end
    assert len(lines_of(folder)) < GAMES

    code, said = _arena_here("run", "--resume", str(folder))  # the resume: no kill to take
    assert code == 0, said[-2000:]
    _check_complete(folder)
    assert json.loads((folder / "tournament.json").read_text())["seed"] == seed
    assert _standings(folder) == _standings(reference_folder)


@pytest.mark.slow
def test_ctrl_c_finishes_games_in_flight_then_resume_completes(
    tmp_path: Path, reference: tuple[Path, str]
) -> None:
    reference_folder, seed = reference
    bots = copy_bots(tmp_path / "bots", delay=0.004)
    folder = tmp_path / "out" / "t1"
    log = tmp_path / "arena.log"
    process = arena_process(*_run_args(bots, tmp_path / "out", "t1", seed), log=log)
    try:
        seen = _wait_for_games(folder, 3, process)
        bots_running = children_of(process.pid)
        os.killpg(process.pid, signal.SIGINT)  # what Ctrl-C sends: bots have groups of their own
        code = finish(process, log, timeout=60)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert code == 130, log.read_text()[-2000:]
    assert wait_gone(bots_running) == []
    info = json.loads((folder / "tournament.json").read_text())
    assert info["status"] == "interrupted"
    assert info["seed"] is None
    lines = lines_of(folder)
    # The two games in flight when the file showed `seen` lines were finished, not dropped.
    assert seen + 2 <= len(lines) < GAMES
    assert all(line["faults"] == [] for line in lines)
    assert {p.stem for p in (folder / "replays").glob("*.json")} == {x["game"] for x in lines}
    assert "--resume" in log.read_text()

    resumed = arena_process("run", "--resume", str(folder), log=log)
    assert finish(resumed, log, timeout=60) == 0, log.read_text()[-2000:]
    _check_complete(folder)
    assert _standings(folder) == _standings(reference_folder)


@pytest.mark.slow
def test_a_finished_run_is_not_resumed(reference: tuple[Path, str], tmp_path: Path) -> None:
    log = tmp_path / "arena.log"
    process = arena_process("run", "--resume", str(reference[0]), log=log)
    assert finish(process, log, timeout=60) == 1
    assert "already finished" in log.read_text()
