"""A decision's deadline, every rule of it: how long a bot has, when its clock starts and
stops, and which lateness is the bot's and which the referee's.

The time control says what each decision may take, with a per-game bank for
overruns. A fixed limit per decision punishes a bot that thinks hard once in a
game as much as one that is always slow. The bank (Kaggle's overage, Lux's and
Riddles' time banks) lets a bot overrun the move time now and then: the
overrun is paid from its bank, and only a decision that outlasts the move
time and the whole bank left is a timeout. Each seat's bank belongs to one
game, so no game's play can cost a bot time in another.

A decision's clock starts once its request is written and stops when its reply
is read, on the referee's clock; the limit is what the bot was told plus a
margin for scheduling jitter that it is never told of. Time in which the
referee's own event loop was held up (`LoopLag` measures it) is the referee's,
never the bot's: it is taken off the bot's time and added to the deadline. With
timeouts off (`--no-timeout`) no decision has a deadline at all.

A bot far away pays its link on every decision: the request's way out and the
reply's way back are on the referee's clock. Where the organiser allows it
(`--lag-allowance`), the link's measured round trip (`RoundTrip`, timed by the
front door's HTTP/2 PINGs, which the bot's gRPC library answers, not its
code) is the network's, credited like the referee's lateness: taken off the
bot's time and added to the deadline, but never more than the allowance, and
nothing without a measurement. No measurement is shorter than the link; a bot
makes one longer only by delaying its own HTTP/2, and then wins the allowance
on a decision at most, as Lichess caps its lag compensation per move. When the
link was timed by Pongs the bot's code wrote, a bot answering them late won
that on every decision; a cap per game was tried against it and taken back: it
charged an honest bot across the world its whole link once the cap was spent,
mid-game.

The machinery stays where it runs (the session's one timer, the late replies
it remembers, the match's bookkeeping); the arithmetic it runs on is here, in
one place, with tests of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from arena.errors import ArenaError

DEFAULT_TIME_MARGIN = 0.025
"""Seconds a decision may run past the move time before it is a timeout: the scheduling
jitter of a busy machine (cutechess's timemargin), which bots are not told of."""


LEAGUE_LAG_ALLOWANCE = 0.25
"""Seconds of its measured round trip a league server credits a bot per decision unless
told otherwise (`--lag-allowance`). Most links between continents are under it (about
80 ms across the Atlantic, 150-250 ms from Europe to East Asia or Australia), so a
remote bot's clock counts its thinking; and a bot that delays its HTTP/2 to seem far away
gains a quarter of the default 1 s move time at most. `arena run`'s bots are local: their
socket has no network, and the default there is 0."""


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
    margin: float = 0.0
    """Seconds of scheduling jitter forgiven on every limit: never told, never charged."""
    lag_allowance: float = 0.0
    """Seconds of a decision's measured link credited to a bot that dialled in from another
    machine, at most; never told. 0: none."""

    def __post_init__(self) -> None:
        if not self.move_time > 0 or not math.isfinite(self.move_time):
            raise TimeControlError(f"the move time must be above 0 s, got {self.move_time!r}")
        for what, value in (
            ("time bank", self.bank),
            ("increment", self.increment),
            ("time margin", self.margin),
            ("lag allowance", self.lag_allowance),
        ):
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

    def __init__(self, control: TimeControl, seats: int) -> None:
        self.control = control
        self.margin = control.margin
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


def network_credit(round_trip: float | None, allowance: float) -> float:
    """Seconds of a decision that are the bot's link's, not its thinking: the session's
    measured `round_trip` (None: never measured, so none), at most the organiser's
    `allowance`. A bot can only make its round trip look longer, so this bounds its gain."""
    if round_trip is None or round_trip <= 0.0 or allowance <= 0.0:
        return 0.0
    return round_trip if round_trip < allowance else allowance


def bot_time(
    elapsed: float, referee_lag: float, credit: float = 0.0, cpu: float | None = None
) -> float:
    """A decision's time that is the bot's: `elapsed` on the referee's clock from the request's
    being written to the reply's being read, less the `referee_lag` in which the referee
    itself was held up meanwhile and the `credit` for its link (`network_credit`); never
    below 0 (a link quicker this time than its measured round trip), nor below the `cpu`
    the bot's process was seen to use in it (up to `elapsed`): a bot that worked for half a
    millisecond did not answer in none."""
    own = elapsed - referee_lag - credit
    if cpu is not None and own < cpu:
        return cpu if cpu < elapsed else elapsed
    return own if own > 0.0 else 0.0


def is_late(charged: float, limit: float) -> bool:
    """Whether a reply that took the bot `charged` seconds (`bot_time`) is a timeout."""
    return charged > limit


def clock_start(began: float, written: float, writing: bool) -> float:
    """When a decision's clock started, for its deadline: once its request was written
    (`written`, 0 until then). A request still `writing`, or never written, is timed from
    when its write `began`: the deadline covers the write, so a bot that takes no data
    cannot hold a game."""
    return began if writing or not written else written


def reply_clock_start(written: float, read: float) -> float:
    """When the clock of a decision answered at `read` started: when its request was
    `written` (0 if the write never completed), unless the reply was read before the
    write's completion was: the bot was quicker than the referee, and nothing is charged."""
    return read if not written or written > read else written


def due(start: float, limit: float, held: float) -> float:
    """When a decision whose clock started at `start` is late: `limit` seconds later, and
    later still by every second the referee was `held` up since (the monitor's figure)."""
    return start + limit + held


def late_by(elapsed: float, held: float, limit: float, credit: float = 0.0) -> float:
    """How far past its `limit` a reply came, read `elapsed` seconds after its request was
    written, the referee's hold-ups (`held`) and the link's `credit` not counted; 0 when it
    was in time."""
    return max(0.0, elapsed - held - credit - limit)


def referee_late(wall: float, limit: float, timed_out: bool, credit: float = 0.0) -> bool:
    """Whether the referee itself was late for a decision the bot answered in time: by its
    `wall` time (the referee's own queueing before the request was out included, the link's
    `credit` not) it is over the limit, though the bot's time is not. Such a decision is the
    referee's to answer for (a `LateDecision` in the game's record), never charged to the bot."""
    return wall - credit > limit and not timed_out
