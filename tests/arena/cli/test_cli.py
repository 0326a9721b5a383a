"""The `arena` command line: leaderboard, replay, and run's refusals."""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.cli.main import main
from arena.cli.replay import tell
from arena.records import GameLine, Replay
from arena.store import SqliteStore
from arena.tournament.report.ratings import rate_all, result_of
from engine import preset

BOTS = Path(__file__).parents[1] / "tournament_bots"
ARENA = Path(sys.executable).parent / "arena"
NAMES = ("bold", "meek", "steady")


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed `arena` command, as a person runs it."""
    return subprocess.run(
        [str(ARENA), *args],
        capture_output=True,
        text=True,
        timeout=90,
        env=dict(os.environ, COLUMNS="200"),
        check=False,
    )


def arena_here(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` through the same `main()` in this process, without a second
    interpreter's start for each (its bots are still processes of their own)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exit_:  # argparse's refusals and --help
            code = exit_.code if isinstance(exit_.code, int) else 1
    return subprocess.CompletedProcess(["arena", *args], code, out.getvalue(), err.getvalue())


@dataclass
class Night:
    out: Path
    folder: Path
    lines: list[dict[str, Any]]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    root = tmp_path_factory.mktemp("cli")
    bots = root / "bots"
    bots.mkdir()
    for name in NAMES:
        shutil.copy(BOTS / f"{name}.py", bots / f"{name}.py")
    out = root / "out"
    done = arena_here(
        "run",
        "--bots",
        str(bots),
        "--games",
        "6",
        "--table-size",
        "3",
        "--rules",
        "calza-any",  # so that the replays hold calza offers declined
        "--jobs",
        "3",
        "--force-jobs",  # more games than this machine's cores: concurrency is what is tried
        "--move-time",
        "1",
        "--out",
        str(out),
        "--name",
        "night1",
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = out / "night1"
    assert f"Results: {folder}" in done.stdout
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    assert len(lines) == 6
    return Night(out, folder, lines)


def test_leaderboard_json_lists_the_bots_of_the_league(night: Night, tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    shutil.copy(night.out / "league.sqlite", league)
    store = SqliteStore(league)  # a second tournament, with a newcomer
    try:
        store.add_tournament("night2", {"id": "night2"})
        store.add_game(
            "night2",
            GameLine("g0", 0, ("meek", "zed"), ("zed", "meek"), faults=(), think_ms={}),
        )
        expected = rate_all([result_of(line) for _, line in store.lines()]).table()
    finally:
        store.close()
    done = arena_here("leaderboard", "--league", str(league), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)
    assert sorted(r["bot"] for r in rows) == sorted([*NAMES, "zed"])
    assert [r["rank"] for r in rows] == [1, 2, 3, 4]
    games = {r["bot"]: r["games"] for r in rows}
    for name in NAMES:
        played = sum(name in line["players"] for line in night.lines)
        assert games[name] == played + (name == "meek")
    assert games["zed"] == 1
    assert [r["bot"] for r in rows] == [s.name for s in expected]
    assert [r["mu"] for r in rows] == [round(s.mu, 3) for s in expected]

    table = arena_here("leaderboard", "--league", str(league))
    assert table.returncode == 0, table.stderr
    assert "League: 2 tournaments, 7 games" in table.stdout
    for name in (*NAMES, "zed"):
        assert name in table.stdout


def test_leaderboard_without_a_league(tmp_path: Path) -> None:
    done = arena_here("leaderboard", "--league", str(tmp_path / "none.sqlite"), "--json")
    assert done.returncode == 1
    assert "no league store" in done.stderr
    assert done.stdout == ""


def _expected_story(replay: dict[str, Any]) -> tuple[list[str], int, int]:
    names = replay["players"]
    hands = []
    rounds = 0
    for event in replay["events"]:
        if "hands" in event:
            rounds += 1
            hands.extend(
                f"{names[seat]}: {' '.join(map(str, hand))}"
                for seat, hand in enumerate(event["hands"])
                if hand
            )
    actions = sum("action" in e for e in replay["events"])
    return hands, rounds, actions


@pytest.mark.parametrize("how", ["id", "tournament/id", "path"])
def test_replay_tells_the_rounds_dice_and_finish(night: Night, how: str) -> None:
    line = night.lines[0]
    game = line["game"]
    path = night.folder / "replays" / f"{game}.json"
    which = {"id": game, "tournament/id": f"night1/{game}", "path": str(path)}[how]
    done = arena_here("replay", which, "--results", str(night.out))
    assert done.returncode == 0, done.stderr
    replay = json.loads(path.read_text())
    hands, rounds, actions = _expected_story(replay)
    told = [x.strip() for x in done.stdout.splitlines()]
    assert told[0].startswith("Tournament night1 (")
    seats = ", ".join(f"{i}:{name}" for i, name in enumerate(line["players"]))
    assert told[1] == f"Game {game}: {seats}"
    assert sum(x.startswith("Round ") for x in told) == rounds
    assert any(x.startswith("Round 1") for x in told)
    for hand in hands:
        assert hand in told
    assert sum(x.endswith(" ms)") for x in told) == actions
    assert told[-1] == "Finishing order: " + ", ".join(line["ranking"])


def test_replay_of_an_unknown_game(night: Night) -> None:
    done = arena_here("replay", "u999-t999-r9", "--results", str(night.out))
    assert done.returncode == 1
    assert "no replay of game 'u999-t999-r9'" in done.stderr


@pytest.mark.parametrize(
    ("seed", "message"),
    [("not-hex", "--seed must be hexadecimal"), ("abcd", "--seed needs at least 16 bytes")],
)
def test_run_refuses_a_bad_seed(tmp_path: Path, seed: str, message: str) -> None:
    done = arena_here("run", "--bots", str(BOTS), "--seed", seed, "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert message in done.stderr
    assert not (tmp_path / "out").exists()


def test_run_refuses_a_missing_bots_folder(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-bots"
    done = arena_here("run", "--bots", str(missing), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert f"{missing} is not a folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()  # nothing half-made is left behind


def test_run_refuses_bad_numbers(tmp_path: Path) -> None:
    done = arena_here("run", "--bots", str(BOTS), "--games", "0", "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    assert "--games" in done.stderr


def test_replay_of_a_game_id_that_several_tournaments_have_tells_the_newest(
    night: Night, tmp_path: Path
) -> None:
    results = tmp_path / "results"
    began = json.loads((night.folder / "tournament.json").read_text())["created"]
    # By when each began, not by name: "later" is the oldest of the three.
    for name, created in (("later", began - 100), ("earlier", began), ("middle", began - 50)):
        shutil.copytree(night.folder, results / name)
        info = results / name / "tournament.json"
        info.write_text(json.dumps(dict(json.loads(info.read_text()), created=created)))
    game = night.lines[0]["game"]
    done = arena_here("replay", game, "--results", str(results))
    assert done.returncode == 0, done.stderr
    path = results / "earlier" / "replays" / f"{game}.json"
    lines = done.stdout.splitlines()
    assert lines[0] == f"Tournament earlier ({path})"
    assert lines[1] == (
        f"{game!r} is in 2 other tournament(s) too, newest first: middle, later "
        f"(arena replay middle/{game})"
    )
    assert lines[2].startswith(f"Game {game}: ")

    chosen = arena_here("replay", f"later/{game}", "--results", str(results))
    assert chosen.returncode == 0, chosen.stderr
    path = results / "later" / "replays" / f"{game}.json"
    assert chosen.stdout.splitlines()[0] == f"Tournament later ({path})"
    assert "other tournament" not in chosen.stdout  # asked by its tournament: nothing to add


def test_replay_has_help_for_every_option() -> None:
    done = arena_here("replay", "--help")
    assert done.returncode == 0
    said = " ".join(done.stdout.split())
    assert "--results RESULTS the results folder a game id is looked for in" in said


def test_replay_says_in_words_when_a_calza_offer_is_declined(night: Night) -> None:
    replays = sorted((night.folder / "replays").glob("*.json"))
    declined = 0
    for path in replays:
        replay = json.loads(path.read_text())
        told = tell(Replay.from_json(replay))
        names = replay["players"]
        actions = [e for e in replay["events"] if "action" in e]
        lines = [x.strip() for x in told if x.endswith(" ms)")]
        assert len(lines) == len(actions)
        standing = ""
        for event, line in zip(actions, lines, strict=True):
            if event["action"].startswith("bid "):
                _, count, face = event["action"].split()
                standing = f"{count} x {'pacos' if face == '1' else face + 's'}"
            elif event["action"] == "pass":
                declined += 1
                who = names[event["seat"]]
                assert line.startswith(f"{who} is offered calza on {standing} and declines")
    assert declined > 0  # the bots pass every offer out of turn


def _league_of_three(path: Path) -> dict[str, list[GameLine]]:
    """Three tournaments of different rules and table sizes, with the games of each."""
    plan = {
        "six-rulebook": ("rulebook", 3, ["ann", "bob", "cy"]),
        "three-no-calza": ("no-calza", 2, ["dee", "eve"]),
        "six-rulebook-pairs": ("rulebook", 2, ["ann", "fay"]),
    }
    games: dict[str, list[GameLine]] = {}
    store = SqliteStore(path)
    try:
        for tid, (rules, size, players) in plan.items():
            store.add_tournament(
                tid, {"id": tid, "ruleset": preset(rules).to_mapping(), "table_size": size}
            )
            games[tid] = [
                GameLine(
                    game=f"g{i}",
                    index=i,
                    players=tuple(players),
                    ranking=tuple(players[i % len(players) :] + players[: i % len(players)]),
                    faults=(),
                    think_ms={},
                )
                for i in range(3)
            ]
            for line in games[tid]:
                store.add_game(tid, line)
    finally:
        store.close()
    return games


@pytest.mark.parametrize(
    ("flags", "kept"),
    [
        (["--tournament", "six-rulebook"], ["six-rulebook"]),
        (["--tournament", "six-rulebook", "--tournament", "three-no-calza"],
         ["six-rulebook", "three-no-calza"]),
        (["--rules", "no-calza"], ["three-no-calza"]),
        (["--table-size", "2"], ["three-no-calza", "six-rulebook-pairs"]),
        (["--rules", "rulebook", "--table-size", "2"], ["six-rulebook-pairs"]),
        (["--rules", "calza-any"], []),
        (["--rule", "calza=off"], ["three-no-calza"]),
        (["--rule", "calza=turn", "--rule", "dice_per_player=5"],
         ["six-rulebook", "six-rulebook-pairs"]),
        (["--rule", "dice_per_player=3"], []),
    ],
)  # fmt: skip
def test_leaderboard_rates_only_the_tournaments_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], kept: list[str]
) -> None:
    league = tmp_path / "league.sqlite"
    games = _league_of_three(league)
    expected = rate_all([result_of(line) for tid in kept for line in games[tid]]).table()
    assert main(["leaderboard", "--league", str(league), "--json", *flags]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["bot"], r["games"]) for r in rows] == [(s.name, s.games) for s in expected]
    assert [r["mu"] for r in rows] == [round(s.mu, 3) for s in expected]

    assert main(["leaderboard", "--league", str(league), *flags]) == 0
    played = sum(len(games[tid]) for tid in kept)
    said = " ".join(capsys.readouterr().out.split())
    assert f"League: {len(kept)} tournaments (of 3, filtered), {played} games" in said


@pytest.mark.parametrize("rule", ["calza=sometimes", "no_such_field=1", "calza"])
def test_leaderboard_refuses_a_bad_rule_filter(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rule: str
) -> None:
    league = tmp_path / "league.sqlite"
    _league_of_three(league)
    with pytest.raises(SystemExit) as refused:
        main(["leaderboard", "--league", str(league), "--rule", rule])
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--rule" in err


def test_leaderboard_names_an_unknown_tournament(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    _league_of_three(league)
    done = arena_here("leaderboard", "--league", str(league), "--tournament", "nope")
    assert done.returncode == 1
    assert "no tournament nope in the league" in " ".join(done.stderr.split())


@pytest.mark.slow
def test_a_resume_says_it_keeps_the_planned_games(night: Night, tmp_path: Path) -> None:
    folder = tmp_path / "out" / "night1"
    shutil.copytree(night.folder, folder)
    shutil.copy(night.out / "league.sqlite", tmp_path / "league.sqlite")
    info = json.loads((folder / "tournament.json").read_text())
    info.update(status="interrupted", seed=None, league=str(tmp_path / "league.sqlite"))
    (folder / "tournament.json").write_text(json.dumps(info))
    kept = (folder / "games.jsonl").read_text().splitlines(keepends=True)[:3]
    (folder / "games.jsonl").write_text("".join(kept))
    # The league holds the games cut from the folder: as the resume advises, take the
    # tournament out, and its folder's games go back in with the rest.
    removed = arena("league", "remove", "night1", "--league", str(tmp_path / "league.sqlite"))
    assert removed.returncode == 0, removed.stderr
    done = arena("run", "--resume", str(folder), "--games", "99")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert (
        f"--games 99 is ignored: a resumed tournament keeps the schedule it began with "
        f"(--games {info['games']})"
    ) in said
    assert len((folder / "games.jsonl").read_text().splitlines()) == len(night.lines)
