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
        if self._ladder is not None and self._ladder.poll():
            self._send({"kind": "ladder", "ladder": self._ladder.json})

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
            "tables": [table.log for table in self._tables.values()],
            "finished": list(self._finished),
            "faults": list(self._faults),
            "notes": list(self._notes),
            "building": sorted(self._building),
            "board": self._board,
            "ladder": self._ladder.json if self._ladder is not None else None,
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
        table = _Table(game.game_id, game.players)
        self._tables[game.game_id] = table
        opened = opening(game.game_id, game.players, game.ruleset.to_mapping())
        if self.shared_deals:
            opened["hidden"] = "a deal other tables play: shown in its replay after the tournament"
        self._table_says(table, opened)
        return table.news.append

    def _catch_up(self) -> None:
        for table in self._tables.values():
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
        if self.shared_deals:  # not even a bid: it tells of the dice another table holds
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
