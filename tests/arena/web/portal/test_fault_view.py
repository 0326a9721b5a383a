"""A fault explained from its game's replay: the n-th fault of the author's seat, its round's
deal and decisions before it, its step in the HTML replay, and the referee's own hold-up."""

from __future__ import annotations

import pytest

import engine
from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import Deal, Decision, FaultEvent, GameLine, LateDecision, Replay
from arena.web.portal.fault_view import FaultNotFoundError, explain


def game() -> tuple[GameLine, Replay]:
    players, ranking = ("bob", "alice"), ("bob", "alice")
    events = (
        Deal(1, 0, False, ((2, 2, 5), (1, 3, 3))),
        Decision(0, "bid 2 3", 12.0),
        Decision(1, "pass", 1.0),  # a declined calza offer: no bid
        Decision(0, "bid 3 3", 14.0),
        FaultEvent(1, FaultKind.TIMEOUT, "no reply within 1000 ms", "", wall_ms=1350.0),
        Deal(2, 1, False, ((2, 2, 5), (1, 3))),
        FaultEvent(1, FaultKind.ILLEGAL_ACTION, "not a raise", "bid 1 1"),
    )
    faults = (
        FaultRecord("g1", "alice", 1, 1, Fault(FaultKind.TIMEOUT, "no reply", "", 7)),
        FaultRecord("g1", "alice", 1, 2, Fault(FaultKind.ILLEGAL_ACTION, "not a raise", "", 9)),
    )
    late = (LateDecision(1, 7, 1350.0, 900.0), LateDecision(0, 7, 1.0, 1.0))
    line = GameLine("g1", 0, players, ranking, faults, {}, referee_late=late)
    return line, Replay("g1", players, engine.Ruleset(), ranking, events)


def test_a_fault_is_explained_by_its_round_and_what_came_before() -> None:
    line, replay = game()
    first = explain(line, replay, "alice", 1)
    assert (first.round, first.dice, first.dice_in_play) == (1, (1, 3, 3), 6)
    assert [(b.player, b.action) for b in first.bids] == [("bob", "bid 2 3"), ("bob", "bid 3 3")]
    assert first.step == 4 + 2 and first.event.wall_ms == 1350.0
    assert first.late == LateDecision(1, 7, 1350.0, 900.0) and first.earlier_ms == (1.0,)
    second = explain(line, replay, "alice", 2)
    assert (second.round, second.dice, second.bids, second.late) == (2, (1, 3), (), None)
    assert second.event.sent == "bid 1 1" and second.step == 6 + 2


@pytest.mark.parametrize(("name", "number"), [("alice", 3), ("alice", 0), ("bob", 1)])
def test_a_fault_not_in_the_game_is_not_found(name: str, number: int) -> None:
    line, replay = game()
    with pytest.raises(FaultNotFoundError, match=f"{name} has no fault number {number}"):
        explain(line, replay, name, number)
