"""An author's games: the version of each from its tournament's pins, filters, pages, and the
head-to-head table with its Wilson intervals."""

from __future__ import annotations

import pytest

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import GameLine
from arena.web.portal.author_games import (
    PAGE_SIZE,
    GameFilter,
    GameFilterError,
    author_games,
    head_to_head,
    paged,
    pinned_versions,
    wilson,
)


def line(game: str, ranking: tuple[str, ...], *faults: tuple[str, FaultKind]) -> GameLine:
    records = tuple(
        FaultRecord(game, bot, ranking.index(bot), 1, Fault(kind, "said")) for bot, kind in faults
    )
    return GameLine(game, 0, tuple(sorted(ranking)), ranking, records, {})


def info(**versions: int | None) -> dict[str, object]:
    bots = {
        name: {"path": name, "files_sha256": "x"}
        | ({} if n is None else {"version": {"number": n, "sha256": "s", "source": "/v"}})
        for name, n in versions.items()
    }
    return {"id": "t", "bots": bots}


def test_each_game_is_labelled_with_the_version_its_tournament_pinned() -> None:
    infos = [("night1", info(alice=1, bob=1)), ("ladder-000002", info(alice=2, bob=None))]
    lines = [
        ("night1", line("g1", ("alice", "bob"))),
        ("ladder-000002", line("g2", ("bob", "alice"))),
        ("ladder-000002", line("g3", ("bob", "carol"))),
    ]
    games = author_games(lines, pinned_versions(infos), "alice")
    assert [(g.game, g.version, g.place) for g in games] == [("g2", 2, 2), ("g1", 1, 1)]
    assert [g.version for g in author_games(lines, pinned_versions(infos), "bob")] == [
        None,
        None,
        1,
    ]


def test_filters_keep_what_they_name_and_pages_hold_at_most_a_page() -> None:
    lines = []
    for i in range(10_000):
        ranking = ("alice", "bob") if i % 3 == 0 else ("carol", "alice")
        faults = [("alice", FaultKind.TIMEOUT)] if i % 7 == 0 else []
        lines.append((f"t{i // 100}", line(f"g{i}", ranking, *faults)))
    pins = {f"t{t}": {"alice": 1 + t // 50} for t in range(100)}
    games = author_games(lines, pins, "alice")
    everything = paged(games, GameFilter())
    assert len(everything.games) == PAGE_SIZE and everything.kept == 10_000
    assert everything.pages == 10_000 // PAGE_SIZE and everything.games[0].game == "g9999"
    last = paged(games, GameFilter(page=10_000))  # past the end: the last page
    assert last.number == last.pages and last.games[-1].game == "g0"
    won = paged(games, GameFilter(result="won", opponent="bob"), size=10_000)
    assert won.kept == len(range(0, 10_000, 3)) and all(g.place == 1 for g in won.games)
    assert all("bob" in g.players for g in won.games)
    lost = paged(games, GameFilter(result="lost"), size=10_000)
    assert lost.kept == 10_000 - won.kept and all(g.place == 2 for g in lost.games)
    timeouts = paged(games, GameFilter(fault="timeout"), size=10_000)
    assert timeouts.kept == len(range(0, 10_000, 7)) == paged(games, GameFilter(fault="any")).kept
    assert paged(games, GameFilter(fault="crash")).kept == 0
    assert paged(games, GameFilter(fault="none")).kept == 10_000 - timeouts.kept
    second = paged(games, GameFilter(version=2), size=10_000)
    assert second.kept == 5_000 and {g.version for g in second.games} == {2}


def test_a_filter_reads_the_query_and_refuses_what_means_nothing() -> None:
    wanted = GameFilter.from_query({"version": "2", "opponent": "bob", "page": "3"})
    assert wanted == GameFilter(2, "bob", None, None, 3)
    assert wanted.query(page=4) == "?version=2&opponent=bob&page=4"
    assert GameFilter().query() == "" and GameFilter.from_query({"result": ""}) == GameFilter()
    for bad in ({"page": "0"}, {"version": "x"}, {"result": "draw"}, {"fault": "boredom"}):
        with pytest.raises(GameFilterError, match=next(iter(bad))):
            GameFilter.from_query(bad)


def test_head_to_head_counts_games_and_finishing_ahead_with_wilson_intervals() -> None:
    lines = [
        ("t", line("g1", ("alice", "bob", "carol"))),
        ("t", line("g2", ("bob", "alice", "carol"))),
        ("t", line("g3", ("carol", "alice"))),
    ]
    rows = head_to_head("alice", author_games(lines, {}, "alice"))
    assert [(r.opponent, r.games, r.ahead) for r in rows] == [("carol", 3, 2), ("bob", 2, 1)]
    low, high = wilson(2, 3)
    assert (round(low, 3), round(high, 3)) == (0.208, 0.939)
    assert wilson(0, 10)[0] == 0.0 and round(wilson(0, 10)[1], 3) == 0.278
    assert wilson(0, 0) == (0.0, 1.0)
