"""The time control: what each decision may take, and a per-game bank for overruns.

A fixed limit per decision punishes a bot that thinks hard once in a game as
much as one that is always slow. The bank (Kaggle's overage, Lux's and
Riddles' time banks) lets a bot overrun the move time now and then: the
overrun is paid from its bank, and only a decision that outlasts the move
time and the whole bank left is a timeout. Each seat's bank belongs to one
game, so no game's play can cost a bot time in another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.errors import ArenaError


class TimeControlError(ArenaError, ValueError):
    """A time control that cannot be played: a negative or zero time."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """How long a bot may think, as the bots are told it (`pb.TimeControl`)."""

    move_time: float = 1.0
    """Seconds every decision may take without touching the bank."""
    bank: float = 0.0
    """Seconds each seat starts every game with, to pay for decisions over `move_time`."""
    increment: float = 0.0
    """Seconds added to a seat's bank after each decision it answered in time (no ceiling)."""
    enforced: bool = True
    """False in debug mode (`--no-timeout`): nothing is ever a timeout. Bots are still told
    the times above, so that they play as they would in a tournament."""

    def __post_init__(self) -> None:
        if not self.move_time > 0 or not math.isfinite(self.move_time):
            raise TimeControlError(f"the move time must be above 0 s, got {self.move_time!r}")
        for what, value in (("time bank", self.bank), ("increment", self.increment)):
            if not value >= 0 or not math.isfinite(value):
                raise TimeControlError(f"the {what} must be 0 s or more, got {value!r}")

    def describe(self) -> str:
        """The time control in words, as the run shows it."""
        words = f"{self.move_time:g} s per decision"
        if self.bank:
            words += f", a bank of {self.bank:g} s a game"
        if self.increment:
            words += f", +{self.increment:g} s to the bank per decision"
        if not self.enforced:
            words += " (TIMEOUTS OFF: no deadline is enforced)"
        return words


class GameClock:
    """Each seat's bank in one game, and the limit it gives each decision."""

    def __init__(self, control: TimeControl, seats: int, margin: float = 0.0) -> None:
        self.control = control
        self.margin = margin
        """Seconds of scheduling jitter forgiven on every limit: never told, never charged."""
        self._bank = [control.bank] * seats

    def bank_left(self, seat: int) -> float:
        return self._bank[seat]

    def told(self, seat: int) -> float:
        """What the bot is told it has for its next decision: the move time and its bank."""
        return self.control.move_time + self._bank[seat]

    def limit(self, seat: int) -> float:
        """What its next decision may take before it is a timeout (infinite with timeouts off)."""
        if not self.control.enforced:
            return math.inf
        return self.told(seat) + self.margin

    def charge(self, seat: int, seconds: float, timed_out: bool) -> None:
        """Pay a decision's time beyond the move time (and the margin) from the seat's bank.

        A timeout spends the whole bank; a decision answered in time earns the
        increment afterwards.
        """
        if timed_out:
            self._bank[seat] = 0.0
            return
        over = max(0.0, seconds - self.control.move_time - self.margin)
        self._bank[seat] = max(0.0, self._bank[seat] - over) + self.control.increment
