"""A tournament's folder: durable game lines, replays, a torn last line survived."""

from __future__ import annotations

import csv
import json
import stat
from pathlib import Path

import pytest

from arena.faults import Fault, FaultKind, FaultRecord
from arena.match import GameRecord, GameSpec
from arena.ratings import GameResult, Standing
from arena.results import TournamentFolder, result_of, write_atomic
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
        events=[
            {"round": 1, "opener": 0, "palifico": False, "hands": [[1, 2], [3, 4], [5, 6]]},
            {"seat": 0, "action": "bid 2 3", "ms": 1.5},
        ],
        think_ms=[[4.0, 1.0, 3.0, 2.0], [7.0], []],
        decisions=6,
        started=1700000000.123456,
        duration=0.98765,
    )


@pytest.fixture
def folder(tmp_path: Path) -> TournamentFolder:
    return TournamentFolder.create(tmp_path / "t1", {"id": "t1", "status": "running"}, SEED)


def test_create_lays_out_the_folder(folder: TournamentFolder) -> None:
    root = folder.root
    assert folder.info() == {"id": "t1", "status": "running"}
    assert folder.seed() == SEED
    assert stat.S_IMODE((root / "seed.secret").stat().st_mode) == 0o600
    assert (root / "games.jsonl").read_bytes() == b""
    assert (root / "replays").is_dir() and (root / "logs").is_dir()
    assert list(folder.games()) == []
    with pytest.raises(FileExistsError):
        TournamentFolder.create(root, {}, SEED)


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
        "events": record.events,
    }
    assert list(folder.games()) == [line]
    assert line["index"] == 5
    assert line["ranking"] == ["cid", "ann", "bob"]
    assert line["decisions"] == 6
    assert line["duration_s"] == 0.988
    assert [f["kind"] for f in line["faults"]] == ["timeout", "illegal_action"]
    # Each bot's median decision time: of 1, 2, 3, 4 it is 2.5; cid decided nothing.
    assert line["think_ms"] == {"ann": 2.5, "bob": 7.0}
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
        Standing("b", mu=30.0, sigma=2.0, games=3, wins=2, place_sum=4, faults=0, think=[1.0]),
        Standing("a", mu=20.0, sigma=3.0, games=3, wins=1, place_sum=5, faults=2, think=[]),
    ]
    folder.write_leaderboard(table)
    rows = json.loads((folder.root / "leaderboard.json").read_text())
    assert rows == [table[0].to_json(1), table[1].to_json(2)]
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
