"""A log's index of games: appended whole, read back as checked parts, never through a link."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from arena.bots.run.gamelogs import GameSlice, append_slice, find_part, index_of, parse_index


def test_parts_are_read_back_the_last_of_a_game_winning(tmp_path: Path) -> None:
    log = tmp_path / "alice.log"
    assert index_of(log) == tmp_path / "alice.log.index"
    parts = [GameSlice("g1", 0, 10), GameSlice("g2", 10, 30), GameSlice("g1", 30, 45)]
    for part in parts:
        assert append_slice(log, part) is None
    assert parse_index(index_of(log).read_bytes()) == {
        "g1": GameSlice("g1", 30, 45),  # played again after a crash: its last part
        "g2": GameSlice("g2", 10, 30),
    }


def test_one_games_part_is_found_by_its_own_id_alone(tmp_path: Path) -> None:
    data = b"".join(
        part.line()
        for part in (
            GameSlice("g1", 0, 5),
            GameSlice("g10", 5, 9),
            GameSlice("g1", 9, 12),
            GameSlice("xg1", 12, 20),
        )
    )
    assert find_part(data, "g1") == GameSlice("g1", 9, 12)
    assert find_part(data, "g10") == GameSlice("g10", 5, 9)
    assert find_part(data, "g2") is None
    assert find_part(data + b'{"game": "g2", "start": 1', "g2") is None  # torn


def test_torn_and_foreign_lines_are_left_out(tmp_path: Path) -> None:
    data = b"".join(
        [
            GameSlice("g1", 0, 10).line(),
            b"not json\n",
            b'["a", "list"]\n',
            b'{"game": "g2", "start": 20, "end": 5}\n',  # ends before it starts
            b'{"game": "g3", "start": -1, "end": 5}\n',
            b'{"game": "g4", "start": true, "end": 5}\n',
            b'{"game": 7, "start": 0, "end": 5}\n',
            b'{"game": "g5", "start": 0, "end": 5.5}\n',
            GameSlice("g6", 10, 20).line(),
            b'{"game": "g7", "start": 20, "e',  # torn by a crash
        ]
    )
    assert parse_index(data) == {"g1": GameSlice("g1", 0, 10), "g6": GameSlice("g6", 10, 20)}


def test_a_link_or_a_pipe_where_the_index_goes_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.write_bytes(b"kept\n")
    index_of(tmp_path / "alice.log").symlink_to(target)
    failure = append_slice(tmp_path / "alice.log", GameSlice("g1", 0, 1))
    assert failure is not None and "symbolic links" in failure
    assert target.read_bytes() == b"kept\n"
    os.mkfifo(index_of(tmp_path / "bob.log"))  # and at once: nothing reads the pipe
    assert append_slice(tmp_path / "bob.log", GameSlice("g1", 0, 1)) is not None
    reader = os.open(index_of(tmp_path / "bob.log"), os.O_RDONLY | os.O_NONBLOCK)
    try:  # read by someone: opened, and still refused
        refused = append_slice(tmp_path / "bob.log", GameSlice("g1", 0, 1))
        assert refused is not None and "not a regular file" in refused
        with contextlib.suppress(BlockingIOError):
            assert os.read(reader, 100) == b""
    finally:
        os.close(reader)
