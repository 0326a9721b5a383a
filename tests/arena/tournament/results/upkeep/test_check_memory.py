"""`arena league check` after a check that agreed: it reads only what changed since, and still
finds every difference the whole walk (`full`) finds, on real folded records and a night's
folder."""

from __future__ import annotations

import dataclasses
import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from truth_harness import arena, copy_night, enter, write_info

from arena.store import SqliteStore, StoreError
from arena.store.backup import backup, restore
from arena.store.league_store import LeagueStore
from arena.tournament.results.days import ROUNDS, day_rounds, days, primer_of
from arena.tournament.results.folding import fold
from arena.tournament.results.upkeep.check import check
from arena.tournament.results.upkeep.check_memory import MEMORY

ROUNDS_NAMES = ("ladder-000007", "ladder-000008")


def _league(night: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A league of two ladder rounds folded into their day's record and a night in its
    folder, every game stored: (store, results folder)."""
    out = tmp_path / "out"
    league = out / "league.sqlite"
    finished = json.loads((night / "tournament.json").read_text())
    for name in ROUNDS_NAMES:
        folder = copy_night(night, league, out, name)
        write_info(folder, status="finished", seed=finished["seed"])
        enter(league, folder)
        fold(folder)
    enter(league, copy_night(night, league, out, "night"))
    return league, out


def _day(out: Path) -> Path:
    (day,) = days(out)
    return day


def _sql(league: Path, sql: str, *params: object) -> None:
    db = sqlite3.connect(league)
    try:
        db.execute(sql, params)
        db.commit()
    finally:
        db.close()


def _reversed_line(line: str) -> str:
    data = json.loads(line)
    data["ranking"] = data["ranking"][::-1]
    return json.dumps(data)


def _change_stored_game(league: Path, out: Path) -> None:
    db = sqlite3.connect(league)
    try:
        uid, line = db.execute(
            "SELECT uid, line FROM games WHERE tournament = ?", (ROUNDS_NAMES[0],)
        ).fetchone()
        db.execute("UPDATE games SET line = ? WHERE uid = ?", (_reversed_line(line), uid))
        db.commit()
    finally:
        db.close()


def _remove_stored_game(league: Path, out: Path) -> None:
    _sql(
        league,
        "DELETE FROM games WHERE uid = (SELECT MIN(uid) FROM games WHERE tournament = ?)",
        ROUNDS_NAMES[1],
    )


def _remove_stored_round(league: Path, out: Path) -> None:
    _sql(league, "DELETE FROM games WHERE tournament = ?", ROUNDS_NAMES[0])
    _sql(league, "DELETE FROM tournaments WHERE id = ?", ROUNDS_NAMES[0])


def _change_folded_round(league: Path, out: Path) -> None:
    """The day's last round's line written again with a game's ranking reversed."""
    day = _day(out)
    journal = day / ROUNDS
    raws = journal.read_bytes().splitlines(keepends=True)
    last = [r for _, r in day_rounds(day)][-1]
    lines = list(last.lines)
    lines[0] = dataclasses.replace(lines[0], ranking=lines[0].ranking[::-1])
    again = dataclasses.replace(last, lines=tuple(lines))
    raws[-1] = (json.dumps(again.to_json(primer_of(day))) + "\n").encode()
    journal.write_bytes(b"".join(raws))


def _truncate_day(league: Path, out: Path) -> None:
    journal = _day(out) / ROUNDS
    data = journal.read_bytes()
    journal.write_bytes(data[: len(data) - 20])  # the last round's line torn


def _remove_day(league: Path, out: Path) -> None:
    (_day(out) / ROUNDS).unlink()


def _change_night_keeping_size_and_mtime(league: Path, out: Path) -> None:
    """A game of the night's games.jsonl changed in place, its size and mtime put back: only
    the ctime, which no user can set, says so."""
    journal = out / "night" / "games.jsonl"
    before = journal.stat()
    lines = journal.read_text().splitlines(keepends=True)
    lines[0] = _reversed_line(lines[0]) + "\n"
    journal.write_text("".join(lines))
    assert journal.stat().st_size == before.st_size
    os.utime(journal, ns=(before.st_atime_ns, before.st_mtime_ns))


def _remove_night(league: Path, out: Path) -> None:
    (out / "night" / "tournament.json").unlink()


CHANGES: dict[str, Callable[[Path, Path], None]] = {
    "a game changed in the store": _change_stored_game,
    "a game removed from the store": _remove_stored_game,
    "a round removed from the store": _remove_stored_round,
    "a folded round's record changed on disk": _change_folded_round,
    "a day's record truncated": _truncate_day,
    "a day's record removed": _remove_day,
    "a night's record changed, its size and mtime kept": _change_night_keeping_size_and_mtime,
    "a night's folder removed": _remove_night,
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_check_after_one_that_agreed_finds_what_the_whole_walk_finds(
    change: str, night: Path, tmp_path: Path
) -> None:
    league, out = _league(night, tmp_path)
    first = check(league, [out])
    assert not first.differences and (out / MEMORY / "state.json").is_file()
    CHANGES[change](league, out)
    fast = check(league, [out])
    whole = check(league, [out], full=True)
    assert whole.differences, change
    assert sorted(map(str, fast.differences)) == sorted(map(str, whole.differences))


def _games_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The tournaments whose games the store is asked for from now on, in turn."""
    read: list[str] = []
    games_of = LeagueStore.games_of

    def spied(self: LeagueStore, tournament_id: str) -> dict[str, object]:
        read.append(tournament_id)
        return games_of(self, tournament_id)  # type: ignore[return-value]

    monkeypatch.setattr(LeagueStore, "games_of", spied)
    return read


def test_a_check_after_nothing_changed_reads_no_game(
    night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    league, out = _league(night, tmp_path)
    first = check(league, [out])
    assert not first.differences and first.games == 18
    read = _games_read(monkeypatch)
    again = check(league, [out])
    assert not again.differences and (again.tournaments, again.games) == (3, 18)
    assert read == []
    assert not check(league, [out], full=True).differences
    assert sorted(read) == ["ladder-000007", "ladder-000008", "night"]


def test_a_check_after_more_games_reads_only_those(
    night: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    league, out = _league(night, tmp_path)
    assert not check(league, [out]).differences
    finished = json.loads((night / "tournament.json").read_text())
    folder = copy_night(night, league, out, "ladder-000009")
    write_info(folder, status="finished", seed=finished["seed"])
    enter(league, folder)
    fold(folder)
    read = _games_read(monkeypatch)
    again = check(league, [out])
    assert not again.differences and again.games == 24
    # The day grew by a line: its head is the bytes the last check read, so only the new
    # line is compared; the night did not change.
    assert read == ["ladder-000009"]


def test_a_memory_behind_a_link_is_not_followed(night: Path, tmp_path: Path) -> None:
    league, out = _league(night, tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / MEMORY).symlink_to(elsewhere)
    assert not check(league, [out]).differences
    assert list(elsewhere.iterdir()) == []


def test_the_full_flag_walks_everything(
    night: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    league, out = _league(night, tmp_path)
    code, said, err = arena(capsys, "league", "check", "--league", str(league))
    assert code == 0, said + err
    _change_stored_game(league, out)
    for extra in ([], ["--full"]):
        code, said, err = arena(capsys, "league", "check", "--league", str(league), *extra)
        assert code == 1 and "differs, league vs folder" in said, said + err


def test_a_store_restored_from_a_backup_is_not_taken_for_the_one_remembered(
    night: Path, tmp_path: Path
) -> None:
    """The restored store lacks a round played after its backup, and has been written to
    since as much as the remembered one was: its generation alone would pass for the one
    remembered, and the check would skip the day that holds the round."""
    league, out = _league(night, tmp_path)
    backup_to = tmp_path / "league-backup.sqlite"
    backup(league, backup_to)
    finished = json.loads((night / "tournament.json").read_text())
    later = copy_night(night, league, out, "ladder-000009")
    write_info(later, status="finished", seed=finished["seed"])
    enter(league, later)
    fold(later)
    assert not check(league, [out]).differences  # remembered: the day with the round
    restore(backup_to, league)
    enter(league, copy_night(night, league, out, "more"))  # as many writes as the round's
    found = check(league, [out]).differences
    assert [d.tournament for d in found] == ["ladder-000009"]


def test_a_check_after_one_that_agreed_reads_the_pages_of_what_changed_alone(
    night: Path, tmp_path: Path
) -> None:
    """Every page is read by a check in full (`--full`, or the first) alone: at a million
    games reading them took over a second. A damaged page of what no check compares (here
    the entrants' table) is refused by the next check in full."""
    league, out = _league(night, tmp_path)
    store = SqliteStore(league)
    for n in range(40):
        store.set_entrant(f"entrant-{n}", "ab" * 32)
    store.close()
    assert not check(league, [out]).differences
    db = sqlite3.connect(league)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        size = db.execute("PRAGMA page_size").fetchone()[0]
        (root,) = db.execute(
            "SELECT rootpage FROM sqlite_master WHERE name = 'entrants'"
        ).fetchone()
    finally:
        db.close()
    with league.open("r+b") as data:
        data.seek((root - 1) * size)
        data.write(b"\xff")  # the page's kind: none SQLite knows
    assert not check(league, [out]).differences
    with pytest.raises(StoreError, match=r"malformed|corrupt"):
        check(league, [out], full=True)
