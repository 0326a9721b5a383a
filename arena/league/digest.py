"""The league server's screen for a person: what repeats is said once, the ladder once a minute.

A ladder plays a round of a few games every second or so, and every round
the submitted bots it seats are started, connect, have their round trip
measured and leave; each round's tournament says its sandbox, build network
and limits again, and that a bot is "unchanged since its last build". Said
as they come, that was thousands of lines in minutes, and the line an
organiser waits for (a submission's verdict) was gone from the screen
within a second. So between the server's events and its screen stands a
digest (`Digest`):

- a ladder game is never a line of its own: the ladder's games of the last
  minute are one summary line (rounds, games, who finished first how often);
- a ladder note (sandbox, build network, limits, "unchanged since its last
  build") is said the first time its words come, and not again within the
  hour: what is true for the whole server is said once (a round's name in it
  does not make it new), and a trouble that keeps coming back is said again
  hourly, not lost for good;
- a bot's coming, its round trip and its going are said at most once in
  ten minutes each for that bot (a submitted bot is started for each round
  it plays, and comes and goes each time); the rest are counted in the
  summary, which names the bots;
- a submission's verdict is framed so that it stands out (`screen_line`).

Everything else (a night's games and faults, refusals, the stop) passes as
it came. The JSON log (`--log-format json`) is for machines and keeps every
event: the digest is the readable screen's.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections import Counter
from collections.abc import Callable

from arena.league.screen import Kind, Screen, ScreenEvent

BOT_AGAIN_S = 600.0
"""Seconds before a bot's arrival, round trip or departure is said again."""
NOTE_AGAIN_S = 3600.0
"""Seconds before a ladder note's words, said once, are said again."""
SUMMARY_EVERY_S = 60.0
"""Seconds between two summary lines (one only if something was held back meanwhile)."""
REMEMBERED = 4096
"""Notes and bots remembered at most: past that, the memory starts afresh (a line said twice,
never a server's memory filled by a bot's names)."""

_ROUND = re.compile(r"ladder-\d+")


class Digest:
    """A screen in front of another: tells it what a person needs, and a summary each minute.

    Told from the event loop and from other threads (a TLS handshake's advice), so its
    counts are kept under a lock; `tick` is called by the server's loop (`every_minute`),
    and by each event, so that a summary is never later than the next line."""

    def __init__(
        self,
        out: Screen,
        every_s: float = SUMMARY_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._out = out
        self.every_s = every_s
        self._clock = clock
        self._lock = threading.Lock()
        self._since = clock()
        self._notes: dict[str, float] = {}
        """When each ladder note was said, its rounds' names blanked."""
        self._bots: dict[tuple[str, Kind | str], float] = {}
        """When a bot's arrival, departure or round trip was last said."""
        self._rounds: set[str] = set()
        self._games = 0
        self._firsts: Counter[str] = Counter()
        self._notes_held = 0
        """Ladder notes held back since the last summary, said before."""
        self._comings: Counter[str] = Counter()
        """Lines of each bot's comings and goings held back since the last summary."""

    def __call__(self, event: ScreenEvent) -> None:
        self.tick()
        with self._lock:
            shown = self._passes(event)
        if shown:
            self._out(event)

    def _passes(self, event: ScreenEvent) -> bool:
        if event.kind is Kind.LADDER_GAME:
            fields = event.fields
            self._rounds.add(str(fields.get("round", "")))
            self._games += 1
            ranking = fields.get("ranking")
            if isinstance(ranking, list | tuple) and ranking:
                self._firsts[str(ranking[0])] += 1
            return False
        if event.kind is Kind.NOTE and event.text.startswith("ladder: "):
            return self._first_time(_ROUND.sub("ladder-…", event.text))
        bot = event.fields.get("bot")
        if isinstance(bot, str) and _comes_or_goes(event):
            key = (bot, "round trip" if "round_trip_ms" in event.fields else event.kind)
            now = self._clock()
            last = self._bots.get(key)
            if last is not None and now - last < BOT_AGAIN_S:
                self._comings[bot] += 1
                return False
            if len(self._bots) >= REMEMBERED:
                self._bots.clear()
            self._bots[key] = now
        return True

    def _first_time(self, words: str) -> bool:
        now = self._clock()
        said = self._notes.get(words)
        if said is not None and now - said < NOTE_AGAIN_S:
            self._notes_held += 1
            return False
        if len(self._notes) >= REMEMBERED:
            self._notes.clear()
        self._notes[words] = now
        return True

    def tick(self) -> None:
        """Say the summary of the minute gone, if a minute has gone and it held anything."""
        with self._lock:
            now = self._clock()
            if now - self._since < self.every_s:
                return
            summary = self._summary(now - self._since)
            self._since = now
            self._rounds.clear()
            self._games, self._notes_held = 0, 0
            self._firsts.clear()
            self._comings.clear()
        if summary is not None:
            self._out(summary)

    def _summary(self, seconds: float) -> ScreenEvent | None:
        comings = sum(self._comings.values())
        if not self._games and not self._notes_held and not comings:
            return None
        parts = [f"last {seconds:.0f} s"]
        if self._games:
            rounds = len(self._rounds)
            firsts = ", ".join(f"{name} {n}" for name, n in self._firsts.most_common(5))
            parts.append(
                f"ladder {rounds} round{'' if rounds == 1 else 's'}, {self._games} games "
                f"({self._games / seconds:.1f} a second); first place: {firsts}"
            )
        if comings:
            most = self._comings.most_common(5)
            who = ", ".join(f"{name} {n}" for name, n in most)
            if len(self._comings) > len(most):
                who += f" and {len(self._comings) - len(most)} more"
            parts.append(f"{comings} lines of bots coming and going not repeated ({who})")
        if self._notes_held:
            parts.append(f"{self._notes_held} ladder notes said before")
        fields = {
            "rounds": len(self._rounds),
            "games": self._games,
            "seconds": round(seconds, 1),
            "held_back": comings + self._notes_held,
        }
        return ScreenEvent(Kind.SUMMARY, "; ".join(parts), fields)


def _comes_or_goes(event: ScreenEvent) -> bool:
    """A bot's arrival, round trip or plain departure; a departure the referee caused (a
    flood of stray messages, say) is news, and always said."""
    if event.kind is Kind.DISCONNECT:
        return event.fields.get("why", "not connected") == "not connected"
    return event.kind is Kind.CONNECT or "round_trip_ms" in event.fields


async def every_minute(digest: Digest) -> None:
    """Tick `digest` until cancelled: a quiet minute's summary is not left for the next line."""
    while True:
        await asyncio.sleep(digest.every_s / 4)
        digest.tick()
