"""What a spectator may see of a tournament, and when: built here, and only here.

The runner tells its observers of every game's events as they happen, dice
and all. A spectator is no player, and the page may be on a network, so a
deal's faces are kept back here until the round ends by a dudo or calza
and are sent then, with the count; a round a fault cut short is never
revealed live (its replay shows it). Everything the page receives, the
first state of a late arrival included, is built from the public events
this module makes, so nothing else can leak a die.

Under `--deals disjoint` several tables play one deal, some of them later
than others, and a spectator may be the author of a bot yet to meet it (on
a league server, bots play from their authors' machines): a table of such a
tournament is shown live by its seats and dice counts alone, and its replay
once the tournament has ended.

The HTML replays speak the same event language (`replay_events`), with each
deal's faces in it: a replay is written after the fact, when every round has
ended. One renderer draws both.
"""

from __future__ import annotations

import json
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.records import Deal, Decision, FaultEvent, GameLine, Json, Replay, ReplayEvent, RoundEnd
from arena.referee.match import GameSpec
from arena.text import printable
from arena.tournament.play.observer import Progress
from arena.tournament.play.tables import Watch
from arena.tournament.report.ratings import Standing
from arena.tournament.report.summary import Summary
from arena.web.board import board_json
from arena.web.ladder_view import LadderFeed
from arena.web.stream import FrameLog, Subscriber

SENT_CHARS = 200
"""What a bot sent is shown up to this many characters: a fault's text, not a dump; as text
(`arena.text`), for the page and the replays show it to people."""
KEEP_FINISHED = 300
KEEP_FAULTS = 60
KEEP_NOTES = 20
LADDER_RATE_GAMES = 200
"""The ladder's pace is said over its last this many games."""
CHART_POINTS = 400
"""The rating chart keeps at most this many points per bot, thinned evenly as games go on."""


def public_event(event: ReplayEvent, players: tuple[str, ...]) -> Json:
    """An event as a spectator sees it while the round is on: no deal carries a face."""
    if isinstance(event, Decision):  # the most of them, by far
        data: Json = {"kind": "act", "seat": event.seat, "action": event.action, "ms": event.ms}
        if event.cpu_ms is not None:
            data["cpu_ms"] = event.cpu_ms
        return data
    if isinstance(event, Deal):
        return {
            "kind": "deal",
            "round": event.round,
            "opener": event.opener,
            "palifico": event.palifico,
            "dice": [len(hand) for hand in event.hands],
        }
    if isinstance(event, FaultEvent):
        return {
            "kind": "fault",
            "seat": event.seat,
            "bot": players[event.seat],
            "fault": event.kind.value,
            "detail": printable(event.detail, SENT_CHARS),
            "sent": printable(event.sent, SENT_CHARS),
        }
    return {
        "kind": "end",
        "end": event.end.value,
        "counted": event.counted,
        "changed": event.changed,
        "change": event.change,
    }


def opening(game: str, players: tuple[str, ...], ruleset: Json) -> Json:
    return {"kind": "open", "game": game, "players": list(players), "ruleset": ruleset}


def replay_events(replay: Replay) -> list[Json]:
    """A finished game's events for its HTML replay: every deal with its faces."""
    events = [opening(replay.game, replay.players, replay.ruleset.to_mapping())]
    for event in replay.events:
        data = public_event(event, replay.players)
        if isinstance(event, Deal):
            data["hands"] = [list(hand) for hand in event.hands]
        events.append(data)
    events.append({"kind": "over", "ranking": list(replay.ranking)})
    return events


@dataclass
class _Table:
    """A game in play: its public events so far, and the faces of its round, held back."""

    game: str
    players: tuple[str, ...]
    shared: bool = False
    """Whether its deal is played at other tables too: then none of its play is shown live."""
    log: list[Json] = field(default_factory=list)
    hidden: list[list[int]] | None = None
    news: list[ReplayEvent] = field(default_factory=list)
    """What the match has told and the view has yet to take in: its watch is this list's
    `append`, so that a decision costs the referee no call of the spectator's."""


class Spectator:
    """An observer of the runner (and a watcher of its tables) that keeps the public view.

    It is told everything in the referee's event loop. A game's events are
    only put aside as the match makes them (its watch is a list's `append`)
    and taken in on the web server's tick, or whenever the view is looked at:
    the spectator's work for a decision, done as it happened, cost the
    referee four times what it costs done in a tick's batch, its code and data
    cold among the referee's own. Taking them in keeps the public view up to
    date and puts each message in the pages' one log (`FrameLog`); each
    page's stream reads the log from where it was (`read`), which is the web
    server's concern, never the referee's.
    """

    def __init__(self) -> None:
        self._log = FrameLog(self.snapshot)
        self.closed = False
        self.folder: Path | None = None
        self._tournament = ""
        self._entrants: list[str] = []
        self._progress: Json = {"done": 0, "total": 0, "rate": 0.0, "eta": None}
        self._standings: list[Json] = []
        self._chart: list[Json] = []
        self._tables: dict[str, _Table] = {}
        self._finished: deque[Json] = deque(maxlen=KEEP_FINISHED)
        self._faults: deque[Json] = deque(maxlen=KEEP_FAULTS)
        self._notes: deque[str] = deque(maxlen=KEEP_NOTES)
        self._building: set[str] = set()
        self._board: Json | None = None
        """The run's final leaderboard with the batch fit's confidence, once it has ended."""
        self.shared_deals = False
        """Whether games of this tournament share deals: then no table's play is shown live."""
        self._ladder: LadderFeed | None = None
        self._ladder_tables: dict[str, _Table] = {}
        """The ladder's games in play, by round and game (`ladder-000042/u000-t000-r1`)."""
        self._ladder_ends: deque[float] = deque(maxlen=LADDER_RATE_GAMES)
        self._ladder_played = 0

    # The page's side.

    def subscribe(self) -> Subscriber:
        self._catch_up()
        return self._log.subscribe()

    def unsubscribe(self, subscriber: Subscriber) -> None:
        self._log.unsubscribe(subscriber)

    def read(self, subscriber: Subscriber) -> bytes:
        """What `subscriber` has not read yet, in one piece (see `FrameLog.read`)."""
        self._catch_up()
        return self._log.read(subscriber)

    def flush(self) -> None:
        """Take in every game's news and encode what it says (the web server's tick)."""
        self._catch_up()
        self._look_at_ladder()
        self._log.flush()

    def follow_ladder(self, feed: LadderFeed) -> None:
        """A league server's ladder, shown beside its tournaments and looked at on each tick:
        its board, its round in play and its latest games. Their replays may be shown at
        once: a round's entrants fill one table, so no two of its games share a deal."""
        self._ladder = feed
        self._look_at_ladder()

    def _look_at_ladder(self) -> None:
        if self.closed:
            return  # the pages were told goodbye: nothing comes after it
        if self._ladder is not None and self._ladder.poll():
            self._send({"kind": "ladder", "ladder": self._ladder_json()})

    def _ladder_json(self) -> Json | None:
        """The ladder's view, with the games it has played while this page was served and
        their pace over the last of them (the page's header says them while it plays)."""
        if self._ladder is None or self._ladder.json is None:
            return None
        ends = self._ladder_ends
        span = ends[-1] - ends[0] if len(ends) > 1 else 0.0
        rate = (len(ends) - 1) / span if span > 0 else 0.0
        return {**self._ladder.json, "played": self._ladder_played, "rate": round(rate, 3)}

    def ladder_round(self, round_id: str) -> LadderRound:
        """What follows a ladder round's games for the page (`Ladder.watch`): its tables in
        play beside the night's, bids as they come and dice at each reveal."""
        return LadderRound(self, round_id)

    @property
    def log(self) -> FrameLog:
        return self._log

    def close(self) -> None:
        """End every page's stream (the server is stopping): the pages are told, so that they
        stay as they are rather than try to reconnect."""
        self.closed = True
        self._send({"kind": "bye"})

    @property
    def watchers(self) -> int:
        return self._log.subscribers

    def snapshot(self) -> Json:
        """Everything a page needs to draw itself now: what a late arrival is sent first."""
        self._catch_up()
        return {
            "kind": "state",
            "tournament": self._tournament,
            "entrants": self._entrants,
            "progress": self._progress,
            "standings": self._standings,
            "chart": self._chart,
            "tables": [t.log for t in (*self._tables.values(), *self._ladder_tables.values())],
            "finished": list(self._finished),
            "faults": list(self._faults),
            "notes": list(self._notes),
            "building": sorted(self._building),
            "board": self._board,
            "ladder": self._ladder_json(),
        }

    def _send(self, message: Json) -> None:
        self._log.add(message)

    # The runner's side (Observer).

    def note(self, text: str) -> None:
        text = printable(text)  # a note may quote a bot's log or its build's output
        self._notes.append(text)
        self._send({"kind": "note", "text": text})

    def building(self, name: str, running: bool) -> None:
        (self._building.add if running else self._building.discard)(name)
        self._send({"kind": "building", "building": sorted(self._building)})

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """A tournament begins (a league server plays several): the view starts afresh."""
        self.folder = folder
        self.shared_deals = _deals(folder) != "own"
        self._tournament = folder.name
        self._entrants = list(entrants)
        self._progress = _progress(progress)
        self._standings, self._chart = [], []
        self._tables.clear()
        self._finished.clear()
        self._faults.clear()
        self._building.clear()
        self._board = None
        self._send(self.snapshot())

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        playing = self._tables.get(line.game)
        if playing is not None:  # its last round, before the standings it moves
            self._take_in(playing)
        self._progress = _progress(progress)
        self._standings = [s.row(rank).to_json() for rank, s in enumerate(table, start=1)]
        point = {
            "done": progress.done,
            "ratings": {s.name: round(s.conservative, 3) for s in table},
        }
        self._chart.append(point)
        if len(self._chart) > CHART_POINTS:
            self._chart = self._chart[::2]
        finished = {
            "game": line.game,
            "players": list(line.players),
            "ranking": list(line.ranking),
            "faults": len(line.faults),
        }
        self._finished.appendleft(finished)
        message: Json = {
            "kind": "game",
            "progress": self._progress,
            "standings": self._standings,
            "point": point,
            "finished": finished,
        }
        self._send(message)
        if playing is not None:
            self._table_says(playing, {"kind": "over", "ranking": list(line.ranking)})

    def ended(self, summary: Summary) -> None:
        """The run is over: the page shows its final leaderboard, as the terminal prints it,
        with the batch fit's confidence."""
        if summary.board is None:
            return
        self._board = board_json(summary.board)
        self._standings = self._board["standings"]
        self._send({"kind": "board", **self._board})

    # The runner's side (TableWatcher).

    @property
    def replays_open(self) -> bool:
        """Whether a finished game's replay may be shown now: always, unless deals are shared
        and games are still to be played."""
        return not self.shared_deals or self._progress["done"] == self._progress["total"]

    def table_opened(self, game: GameSpec) -> Watch:
        table = _Table(game.game_id, game.players, self.shared_deals)
        self._tables[game.game_id] = table
        return self._opened(table, game)

    def _opened(self, table: _Table, game: GameSpec) -> Watch:
        opened = opening(table.game, game.players, game.ruleset.to_mapping())
        if table.shared:
            opened["hidden"] = "a deal other tables play: shown in its replay after the tournament"
        self._table_says(table, opened)
        return table.news.append

    def _catch_up(self) -> None:
        for tables in (self._tables, self._ladder_tables):
            for table in tables.values():
                if table.news:
                    self._take_in(table)

    def _take_in(self, table: _Table) -> None:
        news = table.news  # the match's watch appends to this very list
        for event in news:
            self._table_event(table, event)
        news.clear()

    def _table_event(self, table: _Table, event: ReplayEvent) -> None:
        game_id = table.game
        data = public_event(event, table.players)
        if table.shared:  # not even a bid: it tells of the dice another table holds
            if isinstance(event, FaultEvent):
                fault = {"game": game_id, "bot": data["bot"], "fault": data["fault"]}
                self._faults.appendleft({**fault, "detail": "", "sent": ""})
                self._send({"kind": "fault", **fault, "detail": "", "sent": ""})
            if isinstance(event, Deal):
                self._table_says(table, {**data, "round": event.round})
            return
        if isinstance(event, Deal):
            table.hidden = [list(hand) for hand in event.hands]
        elif isinstance(event, RoundEnd):  # the round is over: now, and only now, its dice
            data["hands"], table.hidden = table.hidden, None
        elif isinstance(event, FaultEvent):
            table.hidden = None  # the round is abandoned, never revealed live
            fault = {"game": game_id, **{k: data[k] for k in ("bot", "fault", "detail", "sent")}}
            self._faults.appendleft(fault)
            self._send({"kind": "fault", **fault})
        self._table_says(table, data)

    def table_closed(self, game_id: str) -> None:
        table = self._tables.pop(game_id, None)
        if table is not None:
            self._take_in(table)  # a game abandoned unrecorded: what it came to, then gone
            self._send({"kind": "closed", "game": game_id})

    def _table_says(self, table: _Table, data: Json) -> None:
        data["game"] = table.game
        table.log.append(data)
        self._send({"kind": "table", "event": data})

    # A ladder round's side (LadderRound).

    def _ladder_opened(self, key: str, game: GameSpec, shared: bool) -> Watch:
        table = _Table(key, game.players, shared)
        self._ladder_tables[key] = table
        return self._opened(table, game)

    def _ladder_over(self, key: str, ranking: tuple[str, ...]) -> None:
        self._ladder_played += 1
        self._ladder_ends.append(time.monotonic())
        table = self._ladder_tables.get(key)
        if table is not None:
            self._take_in(table)
            self._table_says(table, {"kind": "over", "ranking": list(ranking)})

    def _ladder_closed(self, key: str) -> None:
        table = self._ladder_tables.pop(key, None)
        if table is not None:
            self._take_in(table)
            self._send({"kind": "closed", "game": key})


class LadderRound:
    """A ladder round followed for the page: an observer of the round's tournament and a
    watcher of its tables. A round is a tournament of its own, several at once and beside a
    night's view, so its tables are kept apart from the night's and named by round and game.

    Its dice are shown at each reveal, as a night's with its own deals are: a round seats its
    entrants at one table, so no other table plays its deal (`arena.matchmaking`). Its deals are
    read from its folder all the same, as a night's: a round that shared them would be shown
    by its seats and dice counts alone."""

    def __init__(self, spectator: Spectator, round_id: str) -> None:
        self._spectator = spectator
        self._round = round_id
        self._shared = True
        """Whether its deals are shared, the safe side until its folder says (`started`)."""

    def _key(self, game_id: str) -> str:
        return f"{self._round}/{game_id}"

    def note(self, text: str) -> None:
        """The round's notes are the server's screen's (its sandbox, its builds)."""

    def building(self, name: str, running: bool) -> None:
        """A round's builds are the server's screen's."""

    def started(self, folder: Path, entrants: list[str], progress: Progress) -> None:
        """The round begins, before any of its tables opens: how it deals."""
        self._shared = _deals(folder) != "own"

    def game_finished(self, line: GameLine, table: list[Standing], progress: Progress) -> None:
        self._spectator._ladder_over(self._key(line.game), line.ranking)

    def table_opened(self, game: GameSpec) -> Watch:
        return self._spectator._ladder_opened(self._key(game.game_id), game, self._shared)

    def table_closed(self, game_id: str) -> None:
        self._spectator._ladder_closed(self._key(game_id))


def _deals(folder: Path) -> str:
    """How the tournament deals (tournament.json); one that cannot be read is taken as shared,
    the safe side."""
    try:
        deals = json.loads((folder / "tournament.json").read_text()).get("deals", "own")
    except (OSError, ValueError, AttributeError):
        return "unknown"
    return str(deals)


def _progress(progress: Progress) -> dict[str, Any]:
    elapsed = max(time.monotonic() - progress.started, 1e-9)
    rate = progress.played_now / elapsed
    left = progress.total - progress.done
    return {
        "done": progress.done,
        "total": progress.total,
        "rate": round(rate, 3),
        "eta": round(left / rate, 1) if rate > 0 else None,
    }
