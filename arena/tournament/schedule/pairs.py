"""The schedule of an A/B test: every deal played twice, once by NEW and once by OLD.

A *pair* is one table of the field with one seat left for the bot under
test, in one rotation, on one deal: NEW plays it in that seat, and OLD plays
it in the same seat against the same opponents on the same dice. So the two
games differ in one thing only, and the pair's outcome (who of the two
placed better) carries much less of the dice's luck than two games apart.

NEW and OLD each meet every deal once. The field meets it twice, which is
why an A/B test wants opponents that keep no memory between games: a bot that
remembered the hands shown in the first game would know them in the second.

The opponents of a unit are `unit_tables` of the field at one seat fewer, in
every rotation with the bot under test, so each opponent sits equally often
and the tested seat goes round the table. Which of NEW and OLD plays a deal
first is drawn at random. The budget is counted in whole pairs and the
schedule cut there (a unit can be large); units are shuffled, so a prefix is
a fair slice.
"""

from __future__ import annotations

import hashlib
import hmac
import random
from collections.abc import Sequence

from arena.tournament.schedule.round_robin import ScheduledGame, ScheduleError, unit_tables


def build_pairs(
    new: str, old: str, field: Sequence[str], size: int, pairs: int, seed: bytes
) -> list[ScheduledGame]:
    """`pairs` pairs, two games each, adjacent in the schedule; the pair is the deal key."""
    if new == old:
        raise ScheduleError(f"NEW and OLD are both named {new}: give one of them another name")
    if {new, old} & set(field):
        raise ScheduleError("the field is the opponents: NEW and OLD are not in it")
    if len(set(field)) != len(field):
        raise ScheduleError("the field's names must be unique")
    if not 2 <= size <= len(field) + 1:
        raise ScheduleError(
            f"a table of NEW or OLD and the field seats 2..{len(field) + 1} here, not {size}"
        )
    if pairs < 1:
        raise ScheduleError("an A/B test plays at least one pair")
    rng = random.Random(hmac.digest(seed, b"perudo-arena/ab-pairs/v1", hashlib.sha256))
    schedule: list[ScheduledGame] = []
    unit = 0
    while len(schedule) < 2 * pairs:
        unit_pairs: list[tuple[str, tuple[str | None, ...]]] = []
        for t, opponents in enumerate(unit_tables(field, size - 1, rng)):
            table: tuple[str | None, ...] = tuple(rng.sample((None, *opponents), size))
            for r in range(size):
                unit_pairs.append((f"u{unit:03d}-t{t:03d}-r{r}", table[r:] + table[:r]))
        rng.shuffle(unit_pairs)
        for key, seating in unit_pairs[: pairs - len(schedule) // 2]:
            first, second = (new, old) if rng.random() < 0.5 else (old, new)
            for bot in (first, second):
                players = tuple(bot if name is None else name for name in seating)
                tag = "new" if bot == new else "old"
                schedule.append(ScheduledGame(len(schedule), f"{key}-{tag}", players, key))
        unit += 1
    return schedule
