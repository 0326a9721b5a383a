"""Submitted bots that crashed, hung or would not start, kept out of the ladder's tables for a
while.

A bot that dials in leaves the ladder's field by itself when it goes (the field is who is
connected) and is back when it dials again. A submitted bot is started by the server for each
round, so a version that crashes would be seated again at once, round after round: every
table it sits at loses its games to the crash, and the others at it play short-handed. So a
submitted entrant whose round ended with it crashed, disconnected or stalled, or skipped (it
never connected, or its build failed), sits out `SIT_OUT_S`; again in its next round, twice
as long, up to `SIT_OUT_MAX_S`. A clean round, or a new version, clears its record. Its
games are never charged to the others: a crash is the crasher's fault, as in any game.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

SIT_OUT_S = 60.0
"""The first time out: about a round's time, long enough not to be seated at the next."""
SIT_OUT_MAX_S = 960.0
"""The longest: a bot that always crashes is tried four times an hour."""
SITS_OUT = frozenset({"crash", "disconnect", "stall"})
"""The fault kinds (`FaultKind` values) that say a bot could not go on, not that it
played badly."""


def why_out(
    name: str, faults: Mapping[str, Mapping[str, int]], skipped: Mapping[str, str], round_id: str
) -> str | None:
    """Why `name` sits out after its round (its faults by kind, the round's bots skipped with
    why), or None for a clean round."""
    if name in skipped:
        return f"could not play {round_id}: {skipped[name]}"
    kinds = sorted(k for k, n in faults.get(name, {}).items() if n and k in SITS_OUT)
    return f"{' and '.join(kinds)} in {round_id}" if kinds else None


@dataclass(frozen=True, slots=True)
class SittingOut:
    """An entrant out of the tables: for how long yet, and why."""

    name: str
    seconds: float
    why: str


class Sideline:
    """Who sits out, until when; each entrant's strikes since its last clean round."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._until: dict[str, tuple[float, str]] = {}
        self._strikes: dict[str, tuple[int, int | None]] = {}
        """Strikes in a row, and of which version."""

    def out(self, name: str, version: int | None, why: str) -> float:
        """`name` could not go on: it sits out, longer for each strike of this version in a
        row; the seconds."""
        strikes, of = self._strikes.get(name, (0, version))
        strikes = strikes + 1 if of == version else 1
        self._strikes[name] = (strikes, version)
        seconds: float = min(SIT_OUT_MAX_S, SIT_OUT_S * 2.0 ** (strikes - 1))
        self._until[name] = (self._clock() + seconds, why)
        return seconds

    def cleared(self, name: str) -> None:
        """`name` played a round through: its strikes are forgotten."""
        self._strikes.pop(name, None)

    def sitting_out(self, name: str, version: int | None) -> bool:
        """Whether `name` is out now; a new version, never yet struck, is not."""
        struck = self._strikes.get(name)
        if struck is not None and struck[1] != version:
            self._until.pop(name, None)
            self._strikes.pop(name, None)
            return False
        return name in {s.name for s in self.now()}

    def now(self) -> list[SittingOut]:
        """Everyone out now, soonest back first."""
        at = self._clock()
        out = [
            SittingOut(name, until - at, why)
            for name, (until, why) in self._until.items()
            if until > at
        ]
        return sorted(out, key=lambda s: (s.seconds, s.name))
