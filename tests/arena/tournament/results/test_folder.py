"""A tournament's folder: durable game lines, replays, a torn last line survived."""

from __future__ import annotations

import csv
import errno
import json
import os
import stat
from pathlib import Path

import pytest
from tournament_harness import minimal_info

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import Deal, Decision
from arena.referee.match import GameRecord, GameSpec
from arena.tournament.report.median import Median
from arena.tournament.report.ratings import GameResult, Standing, result_of
from arena.tournament.results.folder import ResultsError, TournamentFolder, write_atomic
from arena.tournament.schedule.round_robin import ScheduledGame
from engine import Ruleset

SEED = bytes.fromhex("00112233445566778899aabbccddeeff")


def _record(game_id: str, players: tuple[str, ...], order: tuple[int, ...]) -> GameRecord:
    spec = GameSpec(game_id, players, "u0-t0", Ruleset())
    return GameRecord(
        spec,
        order=order,
        faults=[
            FaultRecord(game_id, players[0], 0, 2, Fault(FaultKind.TIMEOUT, "too slow", "", 7)),
            FaultRecord(
                game_id, players[0], 0, 3, Fault(FaultKind.ILLEGAL_ACTION, "no", "bid 0 2", 9)
            ),
        ],
        events=[Deal(1, 0, False, ((1, 2), (3, 4), (5, 6))), Decision(0, "bid 2 3", 1.5)],
        think_ms=[[4.0, 1.0, 3.0, 2.0], [7.0], []],
        decisions=6,
        started=1700000000.123456,
        duration=0.98765,
    )


@pytest.fixture
def folder(tmp_path: Path) -> TournamentFolder:
    (tmp_path / "t1").mkdir()
    return TournamentFolder.lay_out(tmp_path / "t1", minimal_info("t1"), SEED)


def test_create_lays_out_the_folder(folder: TournamentFolder) -> None:
    root = folder.root
    assert folder.info() == minimal_info("t1")
    assert folder.seed() == SEED
    assert stat.S_IMODE((root / "seed.secret").stat().st_mode) == 0o600
    assert (root / "games.jsonl").read_bytes() == b""
    assert (root / "replays").is_dir() and (root / "logs").is_dir()
    assert list(folder.games()) == []


def test_record_game_writes_replay_then_line(folder: TournamentFolder) -> None:
    record = _record("u000-t000-r1", ("ann", "bob", "cid"), (2, 0, 1))
    line = folder.record_game(record, 5)
    replay = json.loads((folder.replays / "u000-t000-r1.json").read_text())
    assert replay == {
        "game": "u000-t000-r1",
        "players": ["ann", "bob", "cid"],
        "deal_key": "u0-t0",
        "ruleset": Ruleset().to_mapping(),
        "ranking": ["cid", "ann", "bob"],
        "events": [
            {"round": 1, "opener": 0, "palifico": False, "hands": [[1, 2], [3, 4], [5, 6]]},
            {"seat": 0, "action": "bid 2 3", "ms": 1.5},
        ],
        "tournament": folder.root.name,  # the game's id across the league: t1/u000-t000-r1
    }
    assert list(folder.games()) == [line]
    written = json.loads(folder.games_path.read_text())
    assert written == line.to_json()
    assert written["index"] == 5
    assert written["ranking"] == ["cid", "ann", "bob"]
    assert written["decisions"] == 6
    assert written["duration_s"] == 0.988
    assert [f["kind"] for f in written["faults"]] == ["timeout", "illegal_action"]
    # Each bot's median decision time: of 1, 2, 3, 4 it is 2.5; cid decided nothing.
    assert written["think_ms"] == {"ann": 2.5, "bob": 7.0}
    assert result_of(line) == GameResult(
        ("cid", "ann", "bob"), {"ann": 2}, {"ann": 2.5, "bob": 7.0}
    )


def test_a_torn_last_line_is_ignored_and_repaired(folder: TournamentFolder) -> None:
    first = folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    second = folder.record_game(_record("g2", ("b", "c", "a"), (1, 2, 0)), 1)
    whole = folder.games_path.read_bytes()
    with folder.games_path.open("ab") as out:  # the process died in the middle of a write
        out.write(b'{"game": "g3", "index": 2, "players": ["c", "a')
    assert list(folder.games()) == [first, second]
    folder.repair()
    assert folder.games_path.read_bytes() == whole
    third = folder.record_game(_record("g3", ("c", "a", "b"), (2, 1, 0)), 2)
    assert list(folder.games()) == [first, second, third]
    folder.repair()  # nothing torn: nothing changes
    assert list(folder.games()) == [first, second, third]


def test_a_single_torn_line_is_cut_away(folder: TournamentFolder) -> None:
    folder.games_path.write_bytes(b'{"game": "g1", "ind')
    assert list(folder.games()) == []
    folder.repair()
    assert folder.games_path.read_bytes() == b""


def test_leaderboard_files(folder: TournamentFolder) -> None:
    table = [
        Standing(
            "b", mu=30.0, sigma=2.0, games=3, wins=2, place_sum=4, faults=0, think=Median([1.0])
        ),
        Standing("a", mu=20.0, sigma=3.0, games=3, wins=1, place_sum=5, faults=2, think=Median()),
    ]
    folder.write_leaderboard(table)
    rows = json.loads((folder.root / "leaderboard.json").read_text())
    assert rows == [table[0].row(1).to_json(), table[1].row(2).to_json()]
    with (folder.root / "leaderboard.csv").open(newline="") as f:
        read = list(csv.DictReader(f))
    assert [r["bot"] for r in read] == ["b", "a"]
    assert [int(r["rank"]) for r in read] == [1, 2]
    assert [int(r["games"]) for r in read] == [3, 3]
    assert read[1]["average_place"] == str(round(5 / 3, 3))
    assert not list(folder.root.glob("*.tmp"))


def test_write_atomic_replaces_whole(tmp_path: Path) -> None:
    target = tmp_path / "x.json"
    write_atomic(target, "first\n")
    write_atomic(target, "second\n")
    assert target.read_text() == "second\n"
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


class Disk:
    """What reached the disk, in order: each fsync (with what the file held then) and rename.

    Wraps `os.fsync` and `os.replace`, so a test can tell data synced before
    it is renamed into place from data renamed first and synced after (or never).
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch, watch: Path | None = None) -> None:
        self.events: list[tuple[str, str, str]] = []
        """("fsync", file, its text then), ("fsync-dir", folder, ""), ("replace", from, to)."""
        self.watched: list[str] = []
        """The text of `watch` at each event: what a crash at that moment would leave."""
        self._watch = watch
        real_fsync, real_replace = os.fsync, os.replace

        def fsync(fd: int) -> None:
            path = os.readlink(f"/proc/self/fd/{fd}")
            if os.path.isdir(path):
                self._note("fsync-dir", path, "")
            else:
                self._note("fsync", path, Path(path).read_text(encoding="utf-8"))
            real_fsync(fd)

        def replace(source: str | Path, target: str | Path) -> None:
            real_replace(source, target)
            self._note("replace", str(source), str(target))

        monkeypatch.setattr(os, "fsync", fsync)
        monkeypatch.setattr(os, "replace", replace)

    def _note(self, kind: str, first: str, second: str) -> None:
        self.events.append((kind, first, second))
        if self._watch is not None:
            self.watched.append(self._watch.read_text(encoding="utf-8"))

    def index(self, kind: str, path: Path, text: str | None = None) -> int:
        """Where the first such event is; fails the test if there is none."""
        for i, (seen, first, second) in enumerate(self.events):
            if seen == kind and first == str(path) and (text is None or second == text):
                return i
        raise AssertionError(f"no {kind} of {path} (with {text!r}) in {self.events}")


def test_write_atomic_syncs_the_data_before_the_rename_and_the_folder_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "x.json"
    disk = Disk(monkeypatch)
    write_atomic(target, "whole text\n")
    synced = disk.index("fsync", tmp_path / "x.json.tmp", "whole text\n")
    renamed = disk.events.index(("replace", str(tmp_path / "x.json.tmp"), str(target)))
    folder_synced = disk.index("fsync-dir", tmp_path)
    # A crash before the folder is synced may lose the rename, never the data behind it.
    assert synced < renamed < folder_synced


def test_a_game_line_is_synced_before_record_game_returns_and_after_its_replay(
    folder: TournamentFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    disk = Disk(monkeypatch, watch=folder.games_path)
    second = folder.record_game(_record("g2", ("b", "c", "a"), (1, 2, 0)), 1)
    lines = "".join(json.dumps(line.to_json()) + "\n" for line in (first, second))
    line_synced = disk.index("fsync", folder.games_path, lines)
    assert line_synced == len(disk.events) - 1  # nothing is left to sync once it returns
    replay = folder.replays / "g2.json"
    replay_renamed = disk.events.index(("replace", str(replay) + ".tmp", str(replay)))
    replays_synced = disk.index("fsync-dir", folder.replays)
    assert disk.index("fsync", Path(str(replay) + ".tmp")) < replay_renamed < replays_synced
    # Until the replay is safely in place, games.jsonl does not list the game.
    assert all('"g2"' not in text for text in disk.watched[: replays_synced + 1])
    assert replays_synced < line_synced


def test_both_leaderboard_files_are_synced_before_they_replace_the_old(
    folder: TournamentFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    disk = Disk(monkeypatch)
    folder.write_leaderboard([Standing("a", games=1, wins=1, place_sum=1)])
    for name in ("leaderboard.json", "leaderboard.csv"):
        target = folder.root / name
        tmp = folder.root / f"{name}.tmp"
        text = target.read_text(encoding="utf-8")
        assert disk.index("fsync", tmp, text) < disk.events.index(
            ("replace", str(tmp), str(target))
        )


# -- reading games.jsonl back through the schedule ------------------------------------


def _planned(*games: tuple[str, tuple[str, ...]]) -> list[ScheduledGame]:
    return [ScheduledGame(i, gid, players, gid) for i, (gid, players) in enumerate(games)]


def test_only_planned_games_count_each_once(folder: TournamentFolder) -> None:
    schedule = _planned(("g1", ("a", "b", "c")), ("g2", ("b", "c", "a")), ("g3", ("c", "a", "b")))
    first = folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    second = folder.record_game(_record("g2", ("b", "c", "a"), (1, 2, 0)), 1)
    with folder.games_path.open("a") as out:
        out.write(json.dumps(first.to_json()) + "\n")  # a duplicate
        out.write(json.dumps(first.to_json() | {"game": "g9"}) + "\n")  # a game nobody planned
        out.write(json.dumps(first.to_json() | {"game": "g3", "index": 2}) + "\n")  # at g1's
    finished = folder.finished(schedule)
    assert finished.lines == (first, second)
    assert finished.ids == {"g1", "g2"}
    assert finished.problems == (
        "games.jsonl line 3: a second copy of g1; ignored",
        "games.jsonl line 4: g9 is no game of the schedule; ignored",
        "games.jsonl line 5: g3 is not the game the schedule planned (other index or players); "
        "ignored",
    )


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("not json at all", "is not JSON"),
        ("{}", "no valid game, index, players, ranking, faults, think_ms"),
        ("[1, 2]", "not a JSON object"),
        (
            '{"game": "g2", "index": "1", "players": [], "ranking": [], "faults": [], '
            '"think_ms": {}}',
            "no valid index",
        ),
    ],
)
def test_a_bad_line_in_the_middle_names_the_file_and_line(
    folder: TournamentFolder, text: str, why: str
) -> None:
    folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    with folder.games_path.open("a") as out:
        out.write(text + "\n")
    folder.record_game(_record("g3", ("c", "a", "b"), (2, 1, 0)), 2)
    with pytest.raises(ResultsError) as error:
        folder.finished(_planned(("g1", ("a", "b", "c"))))
    message = str(error.value)
    assert message.startswith(f"{folder.games_path}, line 2, ")
    assert why in message
    assert "delete that line" in message


def test_replays_missing_or_damaged_are_named(folder: TournamentFolder) -> None:
    lines = [
        folder.record_game(_record(g, ("a", "b", "c"), (0, 1, 2)), i)
        for i, g in enumerate(["g1", "g2", "g3", "g4"])
    ]
    assert folder.replay_problems(lines) == []
    (folder.replays / "g2.json").unlink()
    (folder.replays / "g3.json").write_text('{"game": "g3", "eve')
    other = json.loads((folder.replays / "g4.json").read_text())
    (folder.replays / "g4.json").write_text(json.dumps(dict(other, ranking=["c", "b", "a"])))
    problems = folder.replay_problems(lines)
    assert len(problems) == 3
    assert problems[0].startswith("the replay of g2 is missing")
    assert problems[1].startswith("the replay of g3 is damaged")
    assert problems[2].startswith("the replay of g4 is damaged") and "another result" in problems[2]


def test_a_failed_write_leaves_no_tmp_and_no_half_line(
    folder: TournamentFolder, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    real_write = os.write

    def half_then_full(fd: int, data: bytes) -> int:  # what a disk filling up does
        if len(data) > 20:
            return real_write(fd, data[:20])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(OSError, match="No space"):
        folder.record_game(_record("g2", ("b", "c", "a"), (1, 2, 0)), 1)
    monkeypatch.undo()
    assert list(folder.games()) == [first]  # the half line was taken back
    assert folder.games_path.read_bytes().endswith(b"\n")
    assert not list(folder.root.rglob("*.tmp"))


def test_write_atomic_removes_its_tmp_when_it_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        write_atomic(tmp_path / "x.json", "text\n")
    assert list(tmp_path.iterdir()) == []


def test_clean_tmp_removes_leftovers(folder: TournamentFolder) -> None:
    (folder.root / "leaderboard.json.tmp").write_text("half")
    (folder.replays / "g1.json.tmp").write_text("half")
    assert sorted(p.name for p in folder.clean_tmp()) == ["g1.json.tmp", "leaderboard.json.tmp"]
    assert not list(folder.root.rglob("*.tmp"))


def test_only_a_folder_that_never_played_may_be_laid_out_again(
    folder: TournamentFolder, tmp_path: Path
) -> None:
    assert folder.never_played()
    (folder.logs / "bot.log").write_text("built")
    assert folder.never_played()  # logs of a start that failed do not count
    folder.record_game(_record("g1", ("a", "b", "c"), (0, 1, 2)), 0)
    assert not folder.never_played()
    (tmp_path / "t2").mkdir()
    began = TournamentFolder.lay_out(tmp_path / "t2", minimal_info("t2", entrants=("a", "b")), SEED)
    assert not began.never_played()  # it began to play, though no game ended
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("someone's own folder")
    assert not TournamentFolder(other).never_played()
    empty = tmp_path / "empty"
    empty.mkdir()
    assert TournamentFolder(empty).never_played()  # killed before it wrote anything
