"""`arena run --gauntlet BOT`: every table seats BOT, and the rest keep the schedule's balance."""

from __future__ import annotations

from collections import Counter, defaultdict

import pytest

from arena.tournament.schedule.round_robin import (
    Deals,
    ScheduledGame,
    ScheduleError,
    build,
    explain,
    planned_games,
    unit_size,
)

SEED = bytes(range(32))
BOT = "bot-00"


def _names(n: int) -> list[str]:
    return [f"bot-{i:02d}" for i in range(n)]


CASES = [(n, size) for n in range(2, 9) for size in range(2, min(n, 6) + 1)] + [(40, 4)]


@pytest.mark.parametrize(("n", "size"), CASES)
def test_every_table_seats_the_bot_and_the_field_stays_balanced(n: int, size: int) -> None:
    names = _names(n)
    unit = unit_size(n, size, gauntlet=True)
    games = build(names, size, 2 * unit, SEED, gauntlet=BOT)
    assert len(games) == planned_games(n, size, 2 * unit, gauntlet=True) == 2 * unit
    assert all(BOT in g.players for g in games)
    others = [name for name in names if name != BOT]
    per_bot = Counter(p for g in games for p in g.players if p != BOT)
    assert set(per_bot) == set(others) and len(set(per_bot.values())) == 1
    per_seat = Counter((p, seat) for g in games for seat, p in enumerate(g.players))
    for name in names:
        assert len({per_seat[(name, s)] for s in range(size)}) == 1, f"{name}'s seats"
    groups: dict[str, list[ScheduledGame]] = defaultdict(list)
    for game in games:
        groups[game.game_id.rpartition("-r")[0]].append(game)
    for key, group in groups.items():
        first = group[0].players
        assert len(group) == size, f"table {key} is not in every rotation"
        assert all(any(g.players == first[r:] + first[:r] for r in range(size)) for g in group)


def test_every_game_has_its_own_deal() -> None:
    games = build(_names(6), 3, 100, SEED, gauntlet=BOT)
    assert len({g.deal_key for g in games}) == len(games)


def test_a_gauntlet_of_no_entrant_or_with_disjoint_deals_is_refused() -> None:
    with pytest.raises(ScheduleError, match="not among the entrants"):
        build(_names(4), 2, 10, SEED, gauntlet="nobody")
    with pytest.raises(ScheduleError, match="--deals own"):
        build(_names(8), 2, 10, SEED, deals=Deals.DISJOINT, gauntlet=BOT)


def test_the_plan_is_told_as_a_gauntlet() -> None:
    said = explain(5, 3, 1, BOT)
    assert f"{BOT} at every table" in said
    assert f"{unit_size(5, 3, gauntlet=True):,} games" in said
