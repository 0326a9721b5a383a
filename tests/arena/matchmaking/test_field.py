"""The ladder's field: how its table sizes are said."""

from __future__ import annotations

from arena.matchmaking import tables_of


def test_the_table_sizes_are_said_as_a_sentence_would() -> None:
    assert tables_of((3,)) == "tables of 3"
    assert tables_of((3, 2)) == "tables of 2 or 3"
    assert tables_of((4, 2, 3)) == "tables of 2, 3 or 4"
