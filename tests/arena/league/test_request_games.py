"""The ladder beside test games, on a real league server with kit bots dialled in: the
entrants held for a request are seated at no new ladder table until they are let go, and
the ladder plays on with the others meanwhile."""

from __future__ import annotations

from pathlib import Path

from league_harness import eventually, league, run
from test_ladder import FOUR, connect, ladder, ladder_games

from arena.protocol.messages import admin as apb

HELD = frozenset({"alpha", "beta"})


def test_the_ladder_seats_no_entrant_held_for_test_games(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, ladder_table_sizes=(2,), ladder_jobs=2) as lg:
            await connect(lg, FOUR)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: ladder_games(lg) >= 2, "a ladder round", 60)
            tables = lg.server.ladder.tables
            lg.server.requests.seated = HELD  # as a request holds its table's entrants
            before = set(tables)  # rounds chosen before the hold may still seat them
            held_at: list[tuple[str, ...]] = []
            start = ladder_games(lg)

            def played_on() -> bool:
                held_at.extend(s for r, s in tables.items() if r not in before and HELD & set(s))
                return ladder_games(lg) >= start + 4

            await eventually(played_on, "two ladder rounds of the others", 60)
            assert held_at == []
            lg.server.requests.seated = frozenset()
            seated: list[tuple[str, ...]] = []

            def back() -> bool:
                seated.extend(s for s in tables.values() if HELD & set(s))
                return bool(seated)

            await eventually(back, "a held entrant at a ladder table again", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)

    run(body)
