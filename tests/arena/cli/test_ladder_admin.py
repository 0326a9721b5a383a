"""`arena admin ladder status` in words: a running ladder with no table in play says it waits
for entrants, and for how many."""

from __future__ import annotations

from arena.cli.ladder_admin import _headline
from arena.protocol.messages import admin as apb


def test_a_ladder_with_no_table_in_play_says_it_waits_for_entrants() -> None:
    waiting = apb.LadderResponse(running=True, table_sizes=[3, 4])
    assert _headline(waiting) == (
        "The ladder is running (tables of 3 or 4), waiting for entrants: it seats a table once "
        "3 can play, each connected or with an accepted version, and not sitting out."
    )
    playing = apb.LadderResponse(running=True, table_sizes=[3])
    playing.tables.add(round="ladder-000001", seats=["a", "b", "c"])
    assert _headline(playing) == "The ladder is running (tables of 3)."
    assert _headline(apb.LadderResponse(running=False)) == "The ladder is stopped."
