"""`arena author NAME`: an entrant's versions, head-to-head and a page of its games, from a
real league store, filtered as the author's page filters them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import GameLine
from arena.store import open_store
from arena.web.portal.author_games import PAGE_SIZE


def league(tmp_path: Path) -> Path:
    """Two nights, alice's version 1 in the first and 2 in the second, 60 games each against
    bob or carol; she times out in every tenth game."""
    where = tmp_path / "league.sqlite"
    store = open_store(where)
    for night, version in (("night1", 1), ("night2", 2)):
        pin = {"number": version, "sha256": "s", "source": "/kept"}
        bots = {n: {"path": n, "files_sha256": "x", "version": pin} for n in ("alice", "bob")}
        store.add_tournament(night, {"id": night, "bots": bots}, started=float(version))
        for i in range(60):
            other = "bob" if i % 2 else "carol"
            ranking = ("alice", other) if i % 3 == 0 else (other, "alice")
            fault = Fault(FaultKind.TIMEOUT, "late")
            faults = (FaultRecord(f"g{i}", "alice", 0, 1, fault),) if i % 10 == 0 else ()
            store.add_game(night, GameLine(f"g{i:02d}", i, ("alice", other), ranking, faults, {}))
    store.close()
    return where


def author(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["author", *args])
    said = capsys.readouterr()
    return code, said.out, said.err


def test_author_prints_head_to_head_and_a_filtered_page_of_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = str(league(tmp_path))
    code, out, _ = author(capsys, "alice", "--league", where, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["games"]["kept"] == 120 and len(data["games"]["rows"]) == PAGE_SIZE
    assert data["games"]["rows"][0] == {
        "tournament": "night2", "game": "g59", "version": 2, "place": 2,
        "players": ["alice", "bob"], "faults": [],
    }  # fmt: skip
    bob = next(r for r in data["head_to_head"] if r["opponent"] == "bob")
    assert (bob["games"], bob["ahead"]) == (60, 20) and 0.2 < bob["low"] < 1 / 3 < bob["high"]
    filtered = ["--version", "1", "--opponent", "carol", "--fault", "timeout", "--json"]
    code, out, _ = author(capsys, "alice", "--league", where, *filtered)
    rows = json.loads(out)["games"]["rows"]
    assert rows and all(
        r["version"] == 1 and "carol" in r["players"] and r["faults"] == ["timeout"] for r in rows
    )
    code, out, _ = author(capsys, "alice", "--league", where, "--result", "won", "--page", "2")
    assert code == 0 and "page 2 of 1" not in out and "Against each opponent" in out
    assert "Games: 40, newest first, page 1 of 1" in out  # past the last page: the last


def test_author_says_what_is_wrong_with_a_name_or_a_page(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    where = str(league(tmp_path))
    code, _, err = author(capsys, "nobody", "--league", where)
    assert code == 1 and "no version and no game of 'nobody'" in err
    code, _, err = author(capsys, "alice", "--league", where, "--page", "0")
    assert code == 1 and "page='0' is not a whole number from 1 up" in err
