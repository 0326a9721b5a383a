"""Whole games: the bot against house opponents, under each variant of the rules.

The opponents run in process (`HouseSeat`), so a failure is the bot's own;
the games are played several at once, one per session the bot opened, as in
a tournament.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import engine
from arena.checkbot.positions import HOUSE_RULES, OPPONENT, HouseSeat
from arena.checkbot.verdict import Check, near_limit
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameSpec, Match, Seat
from arena.referee.session.session import Session
from engine import CalzaRule, PalificoFaceChange, Ruleset


async def play_games(
    session_pool: list[Session], clock: TimeControl, say: Callable[[Check], None]
) -> list[Check]:
    """Play each variant once, as many at a time as there are sessions; say each result."""
    variants = [
        ("rulebook", Ruleset()),
        ("calza by anyone", Ruleset(calza=CalzaRule.ANY)),
        ("no calza, palifico every time", Ruleset(calza=CalzaRule.OFF, palifico_once=False)),
        (
            "one-die face change",
            Ruleset(palifico_face_change=PalificoFaceChange.ALL, dice_per_player=3),
        ),
        ("house rules", HOUSE_RULES),
    ]
    checks: list[Check] = []
    seed = engine.new_seed()

    async def play(index: int, label: str, ruleset: Ruleset, session: Session) -> Check:
        seats: list[Seat] = [HouseSeat(f"{OPPONENT}-{i}") for i in range(3)]
        seat = index % 3
        seats[seat] = session
        names = tuple(s.name for s in seats)
        spec = GameSpec(f"check-game-{index}", names, f"check-{index}", ruleset)
        record = await Match(spec, seats, seed, clock).play()
        faults = [f for f in record.faults if f.seat == seat]
        place = record.order.index(seat) + 1
        name = f"whole game: {label}"
        if faults:
            f = faults[0].fault
            sent = f"; it sent {f.sent}" if f.sent else ""
            return Check(
                name, False, f"{f.kind.value} in round {faults[0].round}: {f.detail}{sent}"
            )
        times = record.think_ms[seat]
        slowest = max(times) if times else 0.0
        return Check(
            name,
            True,
            f"place {place} of 3, {len(times)} decisions, slowest {slowest:.1f} ms",
            near_limit(slowest, clock.move_time),
        )

    for start in range(0, len(variants), len(session_pool)):
        batch = variants[start : start + len(session_pool)]
        results = await asyncio.gather(
            *(
                play(start + i, label, rules, session_pool[i])
                for i, (label, rules) in enumerate(batch)
            )
        )
        for check in results:
            say(check)
            checks.append(check)
    return checks
