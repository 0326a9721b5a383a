"""What the organiser sees: refusals, the plan before play, the screen during it, the end.

Bad command lines run in this process (argparse exits with SystemExit), the
nights run as real `arena run` processes with real bots.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from arena.cli.live import LiveView
from arena.cli.main import main
from arena.cli.standings import leaderboard_table, standings_table
from arena.records import GameLine
from arena.tournament.config import TournamentConfig
from arena.tournament.kinds import OptionError
from arena.tournament.play.observer import Progress
from arena.tournament.report.median import Median
from arena.tournament.report.ratings import Standing
from arena.tournament.schedule.round_robin import build, explain, planned_games, unit_size

BOTS = Path(__file__).parents[1] / "tournament_bots"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` through its main() in this process, for a module's fixture (which
    capsys cannot serve); its bots are processes."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return subprocess.CompletedProcess(["arena", *args], code, out.getvalue(), err.getvalue())


def in_process(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as done:  # argparse's way out
        code = done.code if isinstance(done.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def copy_bots(dest: Path, names: tuple[str, ...] = ("bold", "meek", "steady")) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(BOTS / f"{name}.py", dest / f"{name}.py")
    return dest


def needy_bot(bots: Path, name: str, program: str = "no-such-tool-perudo-xyz") -> None:
    folder = bots / name
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "{name}"\nrun = "{program} bot"\nrequires = ["{program}"]\n'
    )


# Each bad command line: one line, exit 1 or 2, no traceback, nothing created.

BAD_RUNS = [
    (["--move-time", "nan"], "--move-time"),
    (["--move-time", "inf"], "--move-time"),
    (["--move-time", "0"], "--move-time"),
    (["--move-time", "-1"], "--move-time"),
    (["--connect-timeout", "0"], "--connect-timeout"),
    (["--connect-timeout", "nan"], "--connect-timeout"),
    (["--memory-mb", "1"], "--memory-mb"),
    (["--cpu-s", "0"], "--cpu-s"),
    (["--seed", ""], "--seed"),
    (["--seed", "abcd"], "--seed"),
    (["--table-size", "0"], "--table-size"),
    (["--table-size", "1"], "--table-size"),
    (["--name", "../x"], "--name"),
    (["--name", "a/b"], "--name"),
    (["--name", ".hidden"], "--name"),
    (["--dice", "100000"], "--dice"),
    (["--dice", "0"], "--dice"),
    (["--games", "0"], "--games"),
    (["--games", "100000000"], "--games"),
    (["--jobs", "0"], "--jobs"),
    (["--games", "many"], "--games"),
]


@pytest.mark.parametrize(("flags", "flag"), BAD_RUNS, ids=[" ".join(f) for f, _ in BAD_RUNS])
def test_a_bad_value_is_one_line_and_creates_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], flag: str
) -> None:
    out = tmp_path / "out"
    code, stdout, err = in_process(capsys, "run", "--bots", str(BOTS), "--out", str(out), *flags)
    assert code in (1, 2)
    assert len(err.strip().splitlines()) == 1, err
    assert flag in err and "Traceback" not in err
    assert stdout == ""
    assert not out.exists()


def _file(tmp_path: Path) -> Path:
    path = tmp_path / "a-file"
    path.write_text("not a folder\n")
    return path


def _junk_league(tmp_path: Path) -> Path:
    path = tmp_path / "league.sqlite"
    path.write_text("this is no database\n" * 10)
    return path


@pytest.mark.parametrize(
    ("where", "message"),
    [
        ("out-is-a-file", "is a file, not a folder"),
        ("league-is-a-folder", "is a folder; give the league store's file"),
        ("league-is-not-sqlite", "is not a league store"),
        ("default-league-is-a-folder", "is a folder; give the league store's file"),
        ("bots-missing", "is not a folder"),
    ],
)
def test_a_bad_path_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], where: str, message: str
) -> None:
    out = tmp_path / "out"
    flags = {
        "out-is-a-file": ["--bots", str(BOTS), "--out", str(_file(tmp_path))],
        "league-is-a-folder": ["--bots", str(BOTS), "--out", str(out), "--league", str(tmp_path)],
        "league-is-not-sqlite": [
            *("--bots", str(BOTS), "--out", str(out)),
            *("--league", str(_junk_league(tmp_path))),
        ],
        "default-league-is-a-folder": ["--bots", str(BOTS), "--out", str(out)],
        "bots-missing": ["--bots", str(tmp_path / "nowhere"), "--out", str(out)],
    }[where]
    if where == "default-league-is-a-folder":
        (out / "league.sqlite").mkdir(parents=True)
    before = sorted(tmp_path.rglob("*"))
    code, stdout, err = in_process(capsys, "run", *flags)
    assert code in (1, 2)
    assert len(err.strip().splitlines()) == 1, err
    assert message in err and "Traceback" not in err
    assert stdout == ""
    assert sorted(tmp_path.rglob("*")) == before


def test_when_no_bot_can_play_each_reason_is_given(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = tmp_path / "bots"
    bots.mkdir()
    needy_bot(bots, "first", "no-such-tool-one")
    needy_bot(bots, "second", "no-such-tool-two")
    code, _, err = in_process(capsys, "run", "--bots", str(bots), "--out", str(tmp_path / "out"))
    assert code == 1
    line = " ".join(err.split())
    assert "fewer than two bots can play (none)" in line
    assert "first: needs no-such-tool-one" in line and "second: needs no-such-tool-two" in line


def test_token_add_takes_the_league_before_or_after_the_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league = str(tmp_path / "league.sqlite")
    assert in_process(capsys, "token", "add", "--league", league, "alice")[0] == 0
    assert in_process(capsys, "token", "add", "bob", "--league", league)[0] == 0
    assert in_process(capsys, "token", "--league", league, "add", "carol")[0] == 0
    code, out, _ = in_process(capsys, "token", "list", "--league", league)
    assert (code, out.split()) == (0, ["alice", "bob", "carol"])


# Before play: the schedule's size, and a dry run.


@pytest.mark.parametrize(
    ("entrants", "size", "games"),
    [(9, 6, 84), (3, 2, 6), (3, 2, 7), (7, 3, 100), (30, 6, 10), (500, 6, 120)],
)
def test_the_schedule_size_is_what_build_makes(entrants: int, size: int, games: int) -> None:
    names = [f"bot{i:03d}" for i in range(entrants)]
    schedule = build(names, size, games, b"\x07" * 32)
    assert planned_games(entrants, size, games) == len(schedule)
    unit = unit_size(entrants, size)
    assert len({g.game_id.split("-")[0] for g in schedule}) == len(schedule) // unit
    said = explain(entrants, size, games)
    assert said.startswith(f"{entrants} bots, tables of {size}: ")
    assert f" is {unit:,} games; --games {games:,} " in said
    if len(schedule) > games:
        assert said.endswith(f"rounds up to {len(schedule):,}")


def test_a_dry_run_plans_without_building_starting_or_creating(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bots = copy_bots(tmp_path / "bots")
    needy_bot(bots, "needy")
    builder = bots / "builder"
    builder.mkdir()
    (builder / "bot.toml").write_text(
        'name = "builder"\nrun = "python bot.py"\nbuild = "touch built.marker"\n'
    )
    (builder / "bot.py").write_text("raise SystemExit(0)\n")
    out = tmp_path / "out"
    code, said, err = in_process(
        capsys,
        *("run", "--bots", str(bots), "--out", str(out), "--dry-run"),
        *("--games", "10", "--table-size", "3"),
    )
    assert code == 0, err
    playing = ["bold", "builder", "meek", "steady"]
    assert f"{len(playing)} bots would play: {', '.join(playing)}" in said
    assert "needy: would be skipped: needs no-such-tool-perudo-xyz" in said
    assert "builder: would build with `touch built.marker`" in said
    assert explain(len(playing), 3, 10) in said
    total = len(build(playing, 3, 10, b"\x01" * 32))
    assert f"rounds up to {total}" in said
    assert not out.exists()
    assert not (builder / "built.marker").exists()


# During play: the live view.


def _long_standings() -> list[Standing]:
    names = ["a-bot-with-a-name-of-forty-characters-xy", "b" * 24, "short"]
    return [
        Standing(n, mu=31.2345 - i, sigma=1.2345, games=12345, wins=6789, place_sum=30000,
                 faults=1234, think=Median([999.99]))
        for i, n in enumerate(names)
    ]  # fmt: skip


@pytest.mark.parametrize("which", ["leaderboard", "standings"])
def test_the_tables_are_readable_at_80_columns(which: str) -> None:
    table = _long_standings()
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(
        leaderboard_table(table) if which == "leaderboard" else standings_table(table, 12)
    )
    text = console.export_text()
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "…" not in text  # no figure and no header is cut short
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if " bot " in line)
    column = lines[header].index(" bot ") + 1
    names: list[str] = []  # a long name may fold onto more lines, but all of it is there
    for line in lines[header + 2 :]:
        if not line.strip() or line.startswith("rating ="):
            break  # the rows end; a caption follows
        if line[:column].strip():
            names.append("")
        if names and len(line) > column and line[column] != " ":
            names[-1] += line[column:].split()[0]
    assert names == [s.name for s in table]
    for s in table:
        assert f"{s.conservative:.2f}" in text and str(s.games) in text


def _frames(output: str) -> list[str]:
    """What a terminal shows at each redraw: the text between rich's line erasures."""
    plain = [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", f) for f in output.split("\x1b[2K")]
    return [f for f in plain if f.strip()]


def test_the_live_view_shows_preparation_then_play_and_ends_without_live_standings() -> None:
    output = io.StringIO()
    console = Console(file=output, force_terminal=True, width=80)
    table = [Standing("alpha"), Standing("beta")]
    with LiveView(console) as view:
        assert view.interactive
        view.redraw()
        preparing = _frames(output.getvalue())[-1]
        view.started(Path("/no/such/night"), ["alpha", "beta"], Progress(0, 2, time.monotonic(), 0))
        line = GameLine("g0", 0, ("alpha", "beta"), ("beta", "alpha"), faults=(), think_ms={})
        view.game_finished(line, table, Progress(1, 2, time.monotonic(), 1))
        view.redraw()
        playing = _frames(output.getvalue())[-1]
    final = _frames(output.getvalue())[-1]
    assert "preparing the bots" in preparing and "0/1" not in preparing
    assert "1/2" in playing and "Standings" in playing
    # The final leaderboard follows, rated in schedule order: the live one is not left above it.
    assert "1/2" in final and "Standings" not in final


# The end of a night: the schedule said first, then skips, faults and slow answers.

SLOWPOKE = """
import time
from arena.kit import PASS, run
from engine import DUDO, Bid

def slow(obs):
    # Self-contained: a sandboxed single-script bot sees no file but its own.
    time.sleep(0.6)
    if not obs.my_turn:
        return PASS
    if obs.can_dudo:
        return DUDO
    face = next(f for f, floor in enumerate(obs.floors, start=1) if floor)
    return Bid(obs.floors[face - 1], face)

run(slow)
"""


@dataclass
class Night:
    folder: Path
    stdout: str
    lines: list[dict[str, Any]]


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    root = tmp_path_factory.mktemp("screen")
    bots = copy_bots(root / "bots", ("bold", "meek"))
    (bots / "slowpoke.py").write_text(SLOWPOKE)
    needy_bot(bots, "needy")
    done = arena(
        *("run", "--bots", str(bots), "--out", str(root / "out"), "--name", "end"),
        *("--games", "5", "--table-size", "2", "--jobs", "3", "--force-jobs", "--move-time", "0.2"),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    folder = root / "out" / "end"
    lines = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    return Night(folder, done.stdout, lines)


def test_the_schedule_is_explained_before_play(night: Night) -> None:
    said = explain(3, 2, 5)
    assert f"rounds up to {len(night.lines)}" in said
    printed = night.stdout.splitlines()
    assert said in printed
    assert printed.index(said) < next(i for i, x in enumerate(printed) if "Leaderboard" in x)


def test_the_end_lists_skipped_bots_faults_by_kind_and_the_slowest_decisions(
    night: Night,
) -> None:
    printed = night.stdout.splitlines()
    info = json.loads((night.folder / "tournament.json").read_text())
    assert [s["name"] for s in info["skipped"]] == ["needy"]
    assert "needs no-such-tool-perudo-xyz" in info["skipped"][0]["reason"]
    assert "  needy: needs no-such-tool-perudo-xyz, not found on PATH" in printed

    kinds: dict[str, dict[str, int]] = {}
    for line in night.lines:
        for fault in line["faults"]:
            kinds.setdefault(fault["bot"], {}).setdefault(fault["kind"], 0)
            kinds[fault["bot"]][fault["kind"]] += 1
    assert "slowpoke" in kinds  # it answers after the limit
    start = printed.index("Faults by bot and kind:")
    for bot, counts in kinds.items():
        detail = ", ".join(f"{k} {n}" for k, n in sorted(counts.items()))
        assert f"  {bot}: {sum(counts.values())} {detail}" in printed[start:]

    times = []
    for line in night.lines:
        replay = json.loads((night.folder / "replays" / f"{line['game']}.json").read_text())
        times += [e["ms"] for e in replay["events"] if "action" in e]
    start = printed.index("Slowest decisions:")
    slow = printed[start + 1 : start + 1 + min(5, len(times))]
    assert [float(x.split()[0]) for x in slow] == [round(t, 1) for t in sorted(times)[::-1][:5]]
    assert sum("Leaderboard" in x for x in printed) == 1


def test_a_table_larger_than_the_bots_folder_is_refused_before_anything_is_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    bots = copy_bots(tmp_path / "bots")
    code, _, err = in_process(
        capsys, "run", "--bots", str(bots), "--out", str(out), "--table-size", "4"
    )
    assert code == 1
    assert "--table-size 4 does not fit the 3 bots" in " ".join(err.split())
    assert not out.exists()


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ""])
def test_a_tournament_refuses_a_name_that_leaves_its_results_folder(
    tmp_path: Path, name: str
) -> None:
    """Also when the name comes from the admin service, not from the command line: a config
    with it cannot be made."""
    out = tmp_path / "deep" / "out"
    with pytest.raises(OptionError, match=r"^--name: .* is not a tournament name"):
        TournamentConfig(bots_dir=copy_bots(tmp_path / "bots"), out=out, name=name)
    assert not (tmp_path / "deep").exists()
