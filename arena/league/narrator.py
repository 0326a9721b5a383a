"""A league server's tournament, the bots that come and go, and the streams it refuses,
told as screen events.

The narrator follows a tournament as its observer and table watcher: the
start, each game as it starts and ends, each fault on record, the end; the
refusals come from the referee (`Referee.refused`) and from the submissions'
port (`SubmissionService.refused`). A refused client often retries at once (a
wrong token in a loop, a flood), so a refusal is told the first time for each
address (an IPv6 one by its /64) and kind, and then at most once a minute with
how many more there were, the name it gave cut to `arena.text.NAME_CHARS`: a
client cannot fill the log, nor the server's memory with what it remembers of
them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

from arena.league.screen import Kind, Screen, ScreenEvent
from arena.records import GameLine, ReplayEvent
from arena.referee.match import GameSpec
from arena.referee.service.lobby import Lobby
from arena.referee.service.peers import counted_as
from arena.referee.service.referee_server import Refusal
from arena.text import NAME_CHARS, printable, short_name
from arena.tournament.play.observer import Progress
from arena.tournament.play.tables import Watch
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Summary

REPEAT_EVERY_S = 60.0
"""Seconds between two lines for refusals of one address and kind."""

SETTLE_S = 0.5
"""Seconds without a session coming or going before a bot's arrival is told: it opens its
sessions one after another, and the line counts all of them."""

SETTLE_MAX_S = 3.0
"""Seconds an arrival waits for the lobby to settle at most: bots keep coming at a busy
server's start."""

REMEMBERED = 4096
"""Addresses and kinds remembered at most; past that, those not refused lately are forgotten."""


def _ignore(event: ReplayEvent) -> None:
    """A game's events are the live page's; the screen tells its start and end."""


class Narrator:
    """One tournament's screen events."""

    def __init__(self, tell: Screen) -> None:
        self._tell = tell
        self._tournament = ""
        self._open: set[str] = set()

    def note(self, text: str) -> None:
        self._tell(ScreenEvent(Kind.NOTE, text))

    def building(self, name: str, running: bool) -> None:
        """Builds are the admin's live view's to show."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        self._tournament = folder.name
        self._tell(
            ScreenEvent(
                Kind.TOURNAMENT_START,
                f"tournament {folder.name} started: {len(entrants)} entrants "
                f"({', '.join(entrants)}), {progress.done} of {progress.total} games played",
                {
                    "tournament": folder.name,
                    "entrants": entrants,
                    "games_done": progress.done,
                    "games_total": progress.total,
                },
            )
        )

    def table_opened(self, game: GameSpec) -> Watch:
        self._open.add(game.game_id)
        self._tell(
            ScreenEvent(
                Kind.GAME_START,
                f"game {game.game_id} started: {', '.join(game.players)}",
                {"tournament": self._tournament, "game": game.game_id, "players": game.players},
            )
        )
        return _ignore

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self._open.discard(line.game)
        took = f", {line.duration_s:.1f} s" if line.duration_s is not None else ""
        self._tell(
            ScreenEvent(
                Kind.GAME_END,
                f"game {line.game} ended: {' > '.join(line.ranking)} "
                f"({line.decisions or 0} decisions{took}); {progress.done} of {progress.total}",
                {
                    "tournament": self._tournament,
                    "game": line.game,
                    "finished": True,
                    "ranking": line.ranking,
                    "decisions": line.decisions,
                    "duration_s": line.duration_s,
                    "games_done": progress.done,
                    "games_total": progress.total,
                },
            )
        )
        for record in line.faults:
            fault = record.fault
            self._tell(
                ScreenEvent(
                    Kind.FAULT,
                    f"fault in game {line.game}: {record.bot} (seat {record.seat}, round "
                    f"{record.round}) {fault.kind.value}: {fault.detail}",
                    {
                        "tournament": self._tournament,
                        "game": line.game,
                        "bot": record.bot,
                        "seat": record.seat,
                        "round": record.round,
                        "kind": fault.kind.value,
                        "detail": fault.detail,
                    },
                )
            )

    def table_closed(self, game_id: str) -> None:
        if game_id not in self._open:  # ended, and told
            return
        self._open.discard(game_id)
        self._tell(
            ScreenEvent(
                Kind.GAME_END,
                f"game {game_id} stopped unfinished (not recorded: a resume plays it)",
                {"tournament": self._tournament, "game": game_id, "finished": False},
            )
        )

    def ended(self, summary: Summary) -> None:
        self._tell(
            ScreenEvent(
                Kind.TOURNAMENT_END,
                f"tournament {summary.folder.name} {summary.status}: {summary.games} of "
                f"{summary.total} games",
                {
                    "tournament": summary.folder.name,
                    "status": summary.status,
                    "games_done": summary.games,
                    "games_total": summary.total,
                },
            )
        )

    def failed(self, error: str) -> None:
        self._tell(
            ScreenEvent(
                Kind.TOURNAMENT_END,
                f"tournament {self._tournament or '(not begun)'} stopped: {error}",
                {"tournament": self._tournament, "status": "error", "error": error},
            )
        )


class Refusals:
    """Tells the referee's refusals, each address and kind once a minute at most."""

    def __init__(
        self,
        tell: Screen,
        every_s: float = REPEAT_EVERY_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._tell = tell
        self.every_s = every_s
        """Seconds between two lines for one address and kind."""
        self._clock = clock
        self._last: dict[tuple[str, str], tuple[float, int]] = {}
        """Per address and status: when it was last told, and how many since."""

    def __call__(self, refusal: Refusal) -> None:
        peer = counted_as(refusal.peer)
        key = (peer, refusal.code.name)
        now = self._clock()
        last = self._last.get(key)
        if last is not None and now - last[0] < self.every_s:
            self._last[key] = (last[0], last[1] + 1)
            return
        if len(self._last) >= REMEMBERED:
            recent = {k: v for k, v in self._last.items() if now - v[0] < self.every_s}
            self._last = recent if len(recent) < REMEMBERED else {}
        more = last[1] if last is not None else 0
        self._last[key] = (now, 0)
        who = f" (bot {short_name(refusal.name)})" if refusal.name else ""
        since = f" ({more} more like it since it was last said)" if more else ""
        self._tell(
            ScreenEvent(
                Kind.REFUSE,
                f"refused a stream from {peer}{who}: {refusal.code.name}: {refusal.detail}{since}",
                {
                    "peer": peer,
                    "bot": printable(refusal.name, NAME_CHARS),
                    "code": refusal.code.name,
                    "reason": refusal.detail,
                    "repeats": more,
                },
            )
        )


def _sessions(count: int) -> str:
    return f"{count} session{'' if count == 1 else 's'}"


class Arrivals:
    """Says who connects and who leaves: a bot with its sessions, or its last gone.

    The lobby is compared with what was last said after each change (and every
    second, in case a change came between two waits), so a bot opening eight
    sessions is one arrival, not eight. A bot opens its sessions one after
    another: its arrival is told once the lobby has settled, so that the count
    is all of them, and a session that comes later still is told as such rather
    than leave the count said wrong.
    """

    def __init__(self, lobby: Lobby, tell: Screen) -> None:
        self._lobby = lobby
        self._tell = tell
        self._seen: dict[str, int] = {}
        """While the lobby settles: the most sessions each bot has had open so far."""
        self._timed: set[str] = set()
        """The bots whose round trip was told since they came."""

    async def follow(self) -> None:
        said: dict[str, int] = {}
        """Per bot connected, the most sessions said."""
        try:
            while True:
                await self._lobby.changed(1.0)
                now = self._lobby.connected()
                if now.keys() - said.keys():
                    self._seen = dict(now)
                    now = await self._settled()
                    self._seen = {}
                self._told_arrivals(now, said)
                for name in sorted(now.keys() & said.keys()):
                    if now[name] > said[name]:
                        text = f"{name} opened more sessions ({_sessions(now[name])} now)"
                        self._arrived(name, text, now[name])
                self._told_departures(now, said)
                said = {name: max(count, said.get(name, 0)) for name, count in now.items()}
                self._told_round_trips(now)
        except asyncio.CancelledError:
            # The server stops: who had come is said, and who has gone since the last look.
            self._told_arrivals(self._seen, said)
            said = {**self._seen, **said}
            self._told_departures(self._lobby.connected(), said)
            raise

    def _told_round_trips(self, now: dict[str, int]) -> None:
        """Each bot's network round trip, once it is measured: told again when the bot comes
        back, since its link may have changed."""
        self._timed &= now.keys()
        for name, seconds in sorted(self._lobby.round_trips().items()):
            if name not in self._timed:
                self._timed.add(name)
                text = f"{name}: network round trip {seconds * 1000:.1f} ms"
                self._tell(
                    ScreenEvent(Kind.NOTE, text, {"bot": name, "round_trip_ms": seconds * 1000})
                )

    def _told_departures(self, now: dict[str, int], said: dict[str, int]) -> None:
        for name in sorted(said.keys() - now.keys()):
            why = self._lobby.absence(name)
            text = f"{name} left (no session open)"
            if why != "not connected":
                text = f"{name} left (no session open: {why})"
            self._tell(ScreenEvent(Kind.DISCONNECT, text, {"bot": name, "why": why}))

    def _told_arrivals(self, now: dict[str, int], said: dict[str, int]) -> None:
        for name in sorted(now.keys() - said.keys()):
            self._arrived(name, f"{name} connected ({_sessions(now[name])})", now[name])

    def _arrived(self, name: str, text: str, sessions: int) -> None:
        self._tell(ScreenEvent(Kind.CONNECT, text, {"bot": name, "sessions": sessions}))

    async def _settled(self) -> dict[str, int]:
        """The most sessions each bot had open while the lobby settled: until no session
        came for SETTLE_S (sessions leaving, or taken and freed by games, do not count). A
        bot that came and went meanwhile is still told, its departure at the next look."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + SETTLE_MAX_S
        still_at = loop.time() + SETTLE_S
        last, most = dict(self._seen), self._seen
        while (now := loop.time()) < min(still_at, give_up):
            await self._lobby.changed(min(still_at, give_up) - now)
            current = self._lobby.connected()
            if any(count > last.get(name, 0) for name, count in current.items()):
                still_at = loop.time() + SETTLE_S  # another came: wait for the rest
            last = current
            for name, count in current.items():
                most[name] = max(count, most.get(name, 0))
        return most
