"""A season archive's manifest: read back as written, and one of another format or version
refused with a line that says which."""

from __future__ import annotations

import json

import pytest

from arena.league.season.manifest import ArchiveError, Link, Manifest, Member


def test_a_manifest_reads_back_as_written() -> None:
    made = Manifest(
        1.5,
        "/srv/league.sqlite",
        {"folder": "/srv", "submissions": "/srv/submissions"},
        "league.sqlite",
        (Member("night/games.jsonl", "ab" * 32, 10),),
        (Link("submissions/lineups/l/alice", "/submissions/versions/" + "c" * 64 + "/bot"),),
        ("season/night/pipe: a named pipe, not a file: not opened",),
    )
    assert Manifest.from_json(json.loads(made.encoded())) == made


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"format": "something else"}, "not a season archive's"),
        ({"format": "perudo-arena-season", "version": 99}, "format version 99"),
        ({"format": "perudo-arena-season", "version": 1, "made": 1.0}, "damaged"),
        ([], "not a season archive's"),
    ],
)
def test_another_manifest_is_refused_saying_why(data: object, said: str) -> None:
    with pytest.raises(ArchiveError, match=said):
        Manifest.from_json(data)
