"""What the pages keep between requests: the games as the store holds them after any change,
and the board and curves of the games before while new ones are being made."""

from __future__ import annotations

import asyncio
from pathlib import Path

from arena.records import GameLine
from arena.store import LeagueStore, open_store
from arena.web.league_view import rating_history
from arena.web.portal.league_cache import Boards, LeagueLines, Seasons, key_of, standings_of


def add(store: LeagueStore, tid: str, started: float, *rankings: tuple[str, ...]) -> None:
    store.add_tournament(tid, {"id": tid, "bots": {}}, started=started)
    start = len(store.games_of(tid))
    for i, ranking in enumerate(rankings, start=start):
        store.add_game(tid, GameLine(f"g{i}", i, tuple(sorted(ranking)), ranking, (), {}))


def test_the_games_read_are_the_stores_after_every_change(tmp_path: Path) -> None:
    store = open_store(tmp_path / "league.sqlite")
    lines = LeagueLines()
    add(store, "night1", 1.0, ("alice", "bob"), ("bob", "alice"))
    assert lines.read(store) == store.lines()
    first = lines.read(store)
    assert lines.read(store) is first  # nothing changed: nothing read
    add(store, "night2", 3.0, ("carol", "alice"))
    add(store, "night1", 1.0, ("alice", "carol"))  # a game put before night2's
    assert lines.read(store) == store.lines() and len(store.lines()) == 4
    store.remove_tournament("night1")
    assert lines.read(store) == store.lines() and lines.games.keys() == {"night2"}


def test_seasons_follow_the_games_and_curves_are_the_leagues(tmp_path: Path) -> None:
    store = open_store(tmp_path / "league.sqlite")
    lines, seasons = LeagueLines(), Seasons()
    add(store, "night1", 1.0, ("alice", "bob"), ("bob", "alice"))
    assert [g.game for g in seasons.of(store, lines, "alice").games] == ["g1", "g0"]
    add(store, "night2", 3.0, ("alice", "carol"))
    add(store, "night1", 1.0, ("carol", "alice"))
    season = seasons.of(store, lines, "alice")
    assert [(g.tournament, g.game) for g in season.games] == [
        ("night2", "g0"), ("night1", "g2"), ("night1", "g1"), ("night1", "g0"),
    ]  # fmt: skip
    assert [(r.opponent, r.games, r.ahead) for r in season.opponents] == [
        ("bob", 2, 1),
        ("carol", 2, 1),
    ]
    paths = standings_of(store.lines()).paths
    assert paths["alice"] == rating_history(store.lines(), "alice")


def test_the_last_board_is_shown_while_the_next_is_made(tmp_path: Path) -> None:
    store = open_store(tmp_path / "league.sqlite")
    add(store, "night1", 1.0, ("alice", "bob"))

    async def body() -> None:
        boards = Boards()
        first = await boards.of(store.lines())  # the first is waited for
        assert [r.bot for r in first.board.rows()] == ["alice", "bob"]
        add(store, "night1", 1.0, *[("bob", "alice")] * 5)
        newer = store.lines()
        assert await boards.of(newer) is first  # the games before's, while the next is made
        for _ in range(600):  # made in a thread (a small league): a generous minute
            shown = await boards.of(newer)
            if shown is not first:
                break
            await asyncio.sleep(0.1)
        assert [r.bot for r in shown.board.rows()] == ["bob", "alice"]
        assert shown.paths["bob"] == rating_history(newer, "bob")
        assert key_of(newer) != key_of(store.lines()[:1])

    asyncio.run(body())
