"""A host's bot budget: least recently used bots stopped first, never one in a game."""

from __future__ import annotations

import pytest

from arena.cluster.budget import BotBudget, BudgetError, Turnover


def test_without_a_limit_every_bot_stays_running() -> None:
    budget = BotBudget(None, 2)
    assert budget.take(["a", "b"]) == Turnover(("a", "b"), ())
    budget.give_back(["a", "b"])
    assert budget.take(["c", "d"]) == Turnover(("c", "d"), ())
    assert set(budget.running) == {"a", "b", "c", "d"}


def test_past_the_limit_the_least_recently_used_idle_bot_is_stopped() -> None:
    budget = BotBudget(3, 2)
    assert budget.take(["a", "b"]) is not None
    budget.give_back(["a", "b"])
    budget.take(["c", "a"])  # a is used again: b is now the least recent
    budget.give_back(["c", "a"])
    assert budget.take(["d", "a"]) == Turnover(("d",), ("b",))
    assert set(budget.running) == {"a", "c", "d"}


def test_a_bot_in_a_game_is_never_stopped_so_a_game_waits() -> None:
    budget = BotBudget(2, 2)
    assert budget.take(["a", "b"]) is not None
    assert budget.take(["c", "d"]) is None  # both places are in a game
    budget.give_back(["a", "b"])
    assert budget.take(["c", "d"]) == Turnover(("c", "d"), ("a", "b"))


def test_a_running_bot_is_not_started_again() -> None:
    budget = BotBudget(2, 2)
    budget.take(["a", "b"])
    assert budget.take(["b", "a"]) == Turnover((), ())


def test_a_budget_smaller_than_a_table_is_refused() -> None:
    with pytest.raises(BudgetError, match="at least 4"):
        BotBudget(3, 4)


def test_a_table_larger_than_the_budget_is_refused_when_it_comes() -> None:
    budget = BotBudget(2, 2)  # the table size was not known yet when the host was made
    with pytest.raises(BudgetError, match="cannot seat a table of 3"):
        budget.take(["a", "b", "c"])
