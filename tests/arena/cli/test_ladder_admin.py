"""`arena admin ladder`: a ladder that stopped by itself is said with why and the way out, and
one that rides out a fault shows it, as the server's status says them."""

from __future__ import annotations

import argparse
import asyncio
import io
from typing import Any

from rich.console import Console

from arena.cli.ladder_admin import _headline, ladder_action
from arena.protocol.messages import admin as apb


class _Stub:
    def __init__(self, reply: apb.LadderResponse) -> None:
        self.reply = reply

    async def Ladder(self, request: Any, **_: Any) -> apb.LadderResponse:  # noqa: N802
        return self.reply


def _said(reply: apb.LadderResponse) -> str:
    out = io.StringIO()
    args = argparse.Namespace(target="status")
    code = asyncio.run(ladder_action(_Stub(reply), [], args, Console(file=out, width=200)))  # type: ignore[arg-type]
    assert code == 0
    return out.getvalue()


def test_a_ladder_stopped_by_a_fault_says_why_and_how_to_start_it() -> None:
    why = (
        "stopped: the league store failed for 61 s: ...; `arena admin ladder start` starts it again"
    )
    said = _said(apb.LadderResponse(running=False, error=why, table_sizes=[3]))
    assert said.splitlines()[0] == f"The ladder is {why}."
    assert "Trouble" not in said


def test_a_ladder_riding_out_a_fault_shows_it() -> None:
    fault = "the disk holding /r is full: ... (4 tries failed in 4 s)"
    said = _said(apb.LadderResponse(running=True, error=fault, table_sizes=[3]))
    assert said.splitlines() == ["The ladder is running (tables of 3).", f"Trouble: {fault}"]
    assert _said(apb.LadderResponse(table_sizes=[3])).strip() == "The ladder is stopped."


def test_the_latest_games_are_named_by_their_round_as_arena_replay_takes_them() -> None:
    """Every round's first game is `u000-t000-r0`: listed bare, 20 lines said the same id."""
    reply = apb.LadderResponse(running=True, table_sizes=[2])
    for number in (7, 8):
        reply.latest.add(round=f"ladder-{number:06d}", game_id="u000-t000-r0", ranking=["a", "b"])
    said = _said(reply)
    assert "  ladder-000007/u000-t000-r0: a, b" in said
    assert "  ladder-000008/u000-t000-r0: a, b" in said


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
