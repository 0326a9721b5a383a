"""Authors' test games on the league server: played beside the ladder, never rated.

A request (`arena request`, the author's page) is judged and kept in the league store
(`arena.submissions.requests`), then played as a small tournament of the versions it
names, from a line-up as a ladder round's are: one request table at a time, one game at a
time, so the ladder keeps its jobs. The entrants at the request table are kept off new
ladder tables while it plays (and it waits for the ladder tables they sit at to end; an
unfinished ladder round of theirs is resumed after it), so no bot plays two tables at once:
a bot's sessions, logs and limits are one table's.

Why its games are never rated: a request's tournament keeps its folder and its games in
`results/requests/`, with a league store of its own there (`requests.sqlite`). The
league's store, which every rating reads (TrueSkill on the ladder board, the batch fit,
`arena leaderboard`, the author page's standing), never holds a request's game, and
`arena league rebuild`, which reads the results folder's own tournaments, never finds one.
What the author is shown (each game's ranking and replay) is kept with the request's row.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from arena.league.grounds import Grounds
from arena.league.screen import Kind, Screen, ScreenEvent
from arena.records import GameLine
from arena.store import LeagueStore
from arena.store.requests import PlayedGame, RequestRow, RequestState
from arena.submissions.lineups import lineup_of, make_way
from arena.submissions.requests import RequestLimits, judge
from arena.tournament.config import TournamentConfig, Venue
from arena.tournament.report.ratings import Standing
from arena.tournament.tournament import Progress, Tournament

FOLDER = "requests"
"""Under the results folder: the requests' tournaments, and their own league store."""
STORE_FILE = "requests.sqlite"
WAKE_S = 1.0
"""How often an idle queue looks again (a request taken wakes it at once)."""

Listener = Callable[[PlayedGame | RequestRow], None]
"""Told each game of a request as it ends, then the request's last row."""


class LadderSeats(Protocol):
    """The ladder's tables in play, by round: the entrants seated at each."""

    @property
    def tables(self) -> Mapping[str, tuple[str, ...]]: ...


class RequestGrounds(Grounds, Protocol):
    """What the requests' games need of the league server (`LeagueServer` has it): the
    grounds, who sits at the ladder's tables, and the running referee to play at."""

    @property
    def ladder(self) -> LadderSeats: ...
    def venue(self, remote: tuple[str, ...]) -> Venue: ...


class _Recorder:
    """A request's observer: each game's end to its listeners."""

    def __init__(
        self, uid: str, played: list[PlayedGame], tell: Callable[[PlayedGame], None]
    ) -> None:
        self._replays = Path(FOLDER) / uid / "replays"
        self._played = played
        self._tell = tell

    def note(self, text: str) -> None:
        pass  # what a request's bots could not do ends in its summary's skipped, and its reason

    def building(self, name: str, running: bool) -> None:
        pass

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        pass

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        replay = self._replays / f"{line.game}.json"
        game = PlayedGame(line.game, tuple(line.ranking), str(replay))
        self._played.append(game)
        self._tell(game)


class RequestGames:
    """The queue of requests, played one at a time while the server runs."""

    def __init__(self, server: RequestGrounds, limits: RequestLimits, tell: Screen | None) -> None:
        self._server = server
        self.limits = limits
        self._tell = tell
        self.seated: frozenset[str] = frozenset()
        """The entrants at the request table (or held for it): the ladder seats none of them."""
        self._listeners: dict[str, list[Listener]] = {}
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._playing: Tournament | None = None
        self._stopping = False
        self._night: object | None = None

    @property
    def store(self) -> LeagueStore:
        return self._server.store

    def _say(self, text: str) -> None:
        if self._tell is not None:
            self._tell(ScreenEvent(Kind.NOTE, f"test games: {text}"))

    def start(self) -> None:
        """Play the queue; a request a killed server left behind costs its author nothing."""
        for row in self._server.store.interrupt_requests():
            self._say(f"{row.uid} of {row.name} was interrupted by a stop; it cost no quota")
        self._task = asyncio.ensure_future(self._loop())

    async def stop(self) -> None:
        """Stop the request in play (its games in flight finish) and end."""
        self._stopping = True
        self._wake.set()
        if self._playing is not None:
            self._playing.request_stop()
        if self._task is not None:
            with contextlib.suppress(Exception):
                await self._task

    async def pause(self, night: object) -> None:
        """Hold while `night` plays: the request in play stops after its games in flight (it
        is interrupted: it costs no quota), so a night's line-up never meets its bots."""
        self._night = night
        if self._playing is not None:
            self._playing.request_stop()
        while self._playing is not None:
            await asyncio.sleep(0.05)

    def go_on(self, night: object) -> None:
        if self._night is night:
            self._night = None
            self._wake.set()

    def ask(
        self, name: str, version: int | None, against: list[str], games: int, now: float
    ) -> RequestRow:
        """Take `name`'s request (a RequestRefusedError says why not) and queue it."""
        store = self._server.store
        asked = judge(store, self.limits, name, version, against, games, now)
        seats = [(n, row.version or 0) for n, row in asked.seats.items()]
        row = store.add_request(name, seats, asked.games, now)
        self._say(f"{row.uid} of {name}: {asked.games} games, {_table(row)}")
        self._wake.set()
        return row

    def ahead_of(self, uid: str) -> int:
        """Requests queued before `uid`."""
        queued = self._queued()
        return next((i for i, row in enumerate(queued) if row.uid == uid), len(queued))

    def follow(self, uid: str, listener: Listener) -> Callable[[], None]:
        """Tell `listener` each game of `uid` and its end; returns how to stop telling it."""
        self._listeners.setdefault(uid, []).append(listener)

        def forget() -> None:
            with contextlib.suppress(KeyError, ValueError):
                self._listeners[uid].remove(listener)

        return forget

    def _told(self, uid: str, what: PlayedGame | RequestRow) -> None:
        for listener in list(self._listeners.get(uid, [])):
            listener(what)

    def _queued(self) -> list[RequestRow]:
        rows = self._server.store.requests()
        return sorted((r for r in rows if r.state is RequestState.QUEUED), key=lambda r: r.uid)

    async def _loop(self) -> None:
        while not self._stopping:
            self._wake.clear()
            try:
                queued = [] if self._night is not None else self._queued()
            except Exception as error:  # a store that cannot be read now: said, tried again
                self._say(f"cannot read the queue: {error}")
                queued = []
            if not queued:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(WAKE_S):  # never wait_for: see test_asyncio_timeouts
                        await self._wake.wait()
                continue
            try:
                await self._take(queued[0])
            except Exception as error:  # the store failed it: said, and tried again in a second
                self._say(f"{queued[0].uid} could not be played now: {error}")
                await asyncio.sleep(WAKE_S)

    async def _take(self, row: RequestRow) -> None:
        """Hold the request's entrants off the ladder, wait for their tables there, play."""
        self.seated = frozenset(n for n, _ in row.seats)
        try:
            ladder = self._server.ladder
            while not self._stopping and self._night is None:
                if not self.seated & {n for seats in ladder.tables.values() for n in seats}:
                    break
                await asyncio.sleep(0.1)
            if self._stopping or self._night is not None:
                return  # still queued: played after the night, or marked at the next start
            await self._play(row)
        finally:
            self.seated = frozenset()

    async def _play(self, row: RequestRow) -> None:
        store = self._server.store
        played: list[PlayedGame] = []
        state, reason = RequestState.PLAYED, ""
        store.set_request(row.uid, RequestState.PLAYING)
        try:
            outcome = await self._run(row, played)
            if outcome is not None:
                state, reason = outcome
        except Exception as error:  # the server stays up; the author is told why
            state, reason = RequestState.FAILED, f"it could not be played: {error}"
        finally:
            self._playing = None
        try:
            store.set_request(row.uid, state, reason, played)
        finally:
            last = dataclasses.replace(row, state=state, reason=reason, played=tuple(played))
            self._told(row.uid, last)
            self._listeners.pop(row.uid, None)
        self._say(f"{row.uid} of {row.name} {state.value}: {len(played)} of {row.games} games")

    async def _run(
        self, row: RequestRow, played: list[PlayedGame]
    ) -> tuple[RequestState, str] | None:
        """Play the request's tournament; its end when not all its games were played."""
        server = self._server
        store = server.store
        rows = {n: store.version_of(n, v) for n, v in row.seats}
        versions = {n: r for n, r in rows.items() if r is not None and r.playable}
        lineup = lineup_of(server.versions.files, versions)
        if lineup is None or len(lineup.pins) < len(row.seats):
            missing = sorted(set(n for n, _ in row.seats) - set(lineup.pins if lineup else ()))
            notes = "; ".join(lineup.notes) if lineup is not None else ""
            why = notes or f"{', '.join(missing)}: the version is withdrawn or gone"
            return RequestState.FAILED, f"a version at its table cannot play ({why})"
        out = server.config.out / FOLDER
        config: TournamentConfig = dataclasses.replace(
            server.config.defaults,
            out=out,
            league=out / STORE_FILE,
            name=row.uid,
            seed=None,
            table_size=len(row.seats),
            games=row.games,
            jobs=1,
            bots_dir=lineup.folder,
        )
        recorder = _Recorder(row.uid, played, lambda game: self._told(row.uid, game))
        tournament = Tournament(config, recorder)
        self._playing = tournament
        venue = server.venue(())
        await make_way(lineup, venue.referee, recorder.note)
        if self._stopping or self._night is not None:
            why = "the server stopped, or a league night began, before it was played; ask again"
            return RequestState.INTERRUPTED, why
        summary = await tournament.run(venue=venue)
        if len(played) >= row.games:
            return None
        if summary.skipped:
            skipped = "; ".join(f"{n}: {why}" for n, why in summary.skipped)
            return RequestState.FAILED, f"a bot could not play ({skipped})"
        return (
            RequestState.INTERRUPTED,
            f"stopped after {len(played)} of {row.games} games (a league night or a stop); "
            "ask again (it cost no quota)",
        )


def _table(row: RequestRow) -> str:
    return ", ".join(f"{n}@{v}" for n, v in row.seats)
