"""The final's field (each entrant's latest accepted version, or the ladder's top N), the
night it asks for, and its record."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.league.final import DEFAULT_GAMES, field_of, final_config
from arena.rankings.level import LEVEL
from arena.store import LeagueStore, open_store
from arena.tournament.config import TournamentConfig
from arena.tournament.results.final_record import (
    RECORD_FILE,
    FinalEntrant,
    FinalError,
    FinalRecord,
    FinalState,
    read_record,
    write_record,
)
from arena.tournament.schedule.round_robin import Deals


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LeagueStore]:
    opened = open_store(tmp_path / "league.sqlite")
    try:
        yield opened
    finally:
        opened.close()


def _version(store: LeagueStore, name: str, accepted: bool = True) -> None:
    uid = f"{name}-{len(store.submissions(name))}"
    store.begin_submission(uid, name, uid, size=100, files=3, received=1000.0)
    store.finish_submission(uid, accepted, "" if accepted else "its check failed", "", "[]")


def _season(store: LeagueStore) -> None:
    """alice: v1, v2, playing v1 by choice; bob: v1, then a refused one; carol: v1, v2
    withdrawn; dave: v1, token revoked; erin: none yet; zed: dialled in, never submitted."""
    for name in ("alice", "bob", "carol", "dave", "erin", "zed"):
        store.set_entrant(name, name[0] * 64)
    for name, verdicts in {
        "alice": (True, True),
        "bob": (True, False),
        "carol": (True, True),
        "dave": (True,),
    }.items():
        for accepted in verdicts:
            _version(store, name, accepted)
    store.choose_version("alice", 1)
    store.withdraw_version("carol", 2)
    store.revoke_entrant("dave")


def test_the_field_is_every_entrants_latest_accepted_version(store: LeagueStore) -> None:
    _season(store)
    assert store.playing_versions()["alice"].version == 1  # the ladder plays the chosen one
    field = field_of(store, [], None)
    assert {name: row.version for name, row in field.items()} == {
        "alice": 2,
        "bob": 1,
        "carol": 1,
    }


def test_top_n_is_the_ladders_best_entrants_that_have_a_version(store: LeagueStore) -> None:
    _season(store)
    board = ["zed", "carol", "dave", "carol", "alice", "bob"]  # zed: no version; dave: revoked
    field = field_of(store, board, 2)
    assert {name: row.version for name, row in field.items()} == {"carol": 1, "alice": 2}
    assert set(field_of(store, board, 10)) == {"carol", "alice", "bob"}


def test_the_final_plays_duplicate_deals_until_confident_under_its_own_name() -> None:
    config = TournamentConfig(bots_dir=None, table_size=2, name="season-3")
    final = final_config(config, 4, {"table_size": 2, "name": "season-3"})
    assert final.deals is Deals.DISJOINT
    assert final.until_confident == LEVEL
    assert final.games == DEFAULT_GAMES
    assert final.name == "final-season-3"
    # Three entrants at tables of two have no two tables that share no bot.
    assert final_config(config, 3, {}).deals is Deals.OWN
    given = {"deals": Deals.OWN, "games": 30, "until_confident": 0.8, "name": "final-x"}
    asked = TournamentConfig(bots_dir=None, table_size=2, **given)  # type: ignore[arg-type]
    kept = final_config(asked, 4, given)
    assert (kept.deals, kept.games, kept.until_confident, kept.name) == (
        Deals.OWN,
        30,
        0.8,
        "final-x",
    )
    assert (final_config(TournamentConfig(bots_dir=None), 3, {}).name or "").startswith("final-")


def test_the_record_is_written_whole_and_read_back(tmp_path: Path) -> None:
    assert read_record(tmp_path) is None
    record = FinalRecord(
        FinalState.FINISHED,
        1000.0,
        "final-season-3",
        (FinalEntrant("alice", 2, "s", 0.4, 0.1, 0.7, 1, 2, 30, 12),),
        ended_at=2000.0,
        level=0.95,
        outcome="the order is known",
    )
    write_record(tmp_path, record)
    assert read_record(tmp_path) == record
    assert [p.name for p in tmp_path.iterdir()] == [RECORD_FILE]  # no staging file left
    (tmp_path / RECORD_FILE).write_text('{"state": "won"}')
    with pytest.raises(FinalError, match="not a final's record"):
        read_record(tmp_path)
