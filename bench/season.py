"""`arena bench season`: a season's ladder recorded as the server records it, and what its
author and organiser look at, timed as it grows.

The referee is left out: each game is synthesised (a plausible game of three
seats, its dice drawn at random, its decisions timed like a quick bot's), but
everything after the game is the league server's own code. Each round of three
games is laid out as a tournament folder (`TournamentFolder.lay_out`), its
games written by the folder's recorder (`record_game`: replay, then journal
line) and into the league store (`add_tournament`, `add_game`), finished, and
folded into its day's record (`arena.tournament.results.folding`), as the
ladder does with `arena serve`. Rounds are spread over the simulated week
(a day's record a seventh of the games).

At 10,000, 100,000 and 1,000,000 games (those the size reaches) it measures
the disk (bytes and files a game: the results folder and the league store) and
times what is used: the organiser's ladder board (a start without its snapshot, whose
first look rates what its budget allows and the looks after it the rest; cold, as after a
restart; then warm after one more round: `arena admin ladder status`, its rows and their
medians), what a refit costs the event loop (the board's games for the fit copied and
pickled for its process), a replay by its id (`arena replay ROUND/GAME`, as the pages find
it), an author's ladder (the author page's row of the status and rating path) and `arena
league check`: once
in full (`--full`, every game), then after each of a few more rounds, as an
organiser checks a running ladder (only what changed since it last agreed).
Each is the median of a few looks, never a guess of the machine's speed.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import engine
from arena.records import Deal, Decision, Json, LeaderboardRow, ReplayEvent, RoundEnd
from arena.referee.match import GameRecord, GameSpec
from arena.store import LeagueStore, open_store
from arena.tournament.info import TournamentInfo
from arena.tournament.results.folder import TournamentFolder, schedule_of
from arena.tournament.results.folding import fold
from bench.soak_record import on_disk

CHECKPOINTS = (10_000, 100_000, 1_000_000)
GOAL_MS = 200.0
GOAL_BYTES = 3_000
GOAL_FILES = 0.05
BOTS = ("ada", "basil", "cora", "dov", "eli", "fay", "gus", "hal")
DAY_S = 86_400.0
LOOKS = 5


@dataclass(frozen=True, slots=True)
class Look:
    """The figures at one size of the record."""

    games: int
    bytes_per_game: float
    files_per_game: float
    board_first_ms: float
    """The first look of a start without the board's snapshot (a first start, or its snapshot
    lost): as the ladder looks, on its budget (`BOARD_BUDGET_S`), the rest rated by the looks
    after it."""
    board_rated_s: float
    """Those looks, one after another, to the whole board rated from the store alone."""
    board_cold_ms: float
    """The board after a restart: its snapshot read, and the rounds after it rated."""
    board_warm_ms: float
    refit_ms: float
    """What a refit costs the event loop: the board's games for the fit copied and sent to its
    process (pickled); the fit itself runs there."""
    replay_ms: float
    author_ms: float
    check_ms: float
    """`arena league check` after one more round, its last agreement remembered."""
    check_full_ms: float
    """`arena league check --full`: every game compared (the first check, or one without a
    memory)."""

    def to_json(self) -> Json:
        return {
            "games": self.games,
            "bytes_per_game": round(self.bytes_per_game, 1),
            "files_per_game": round(self.files_per_game, 5),
            "board_first_ms": round(self.board_first_ms, 1),
            "board_rated_s": round(self.board_rated_s, 1),
            "board_cold_ms": round(self.board_cold_ms, 1),
            "board_warm_ms": round(self.board_warm_ms, 1),
            "refit_ms": round(self.refit_ms, 1),
            "replay_ms": round(self.replay_ms, 1),
            "author_ms": round(self.author_ms, 1),
            "check_ms": round(self.check_ms, 1),
            "check_full_ms": round(self.check_full_ms, 1),
        }


@dataclass(frozen=True, slots=True)
class SeasonFigures:
    looks: tuple[Look, ...]
    seconds: float
    """The whole bench, recording and looks."""

    def findings(self) -> list[str]:
        """Each goal missed at the largest size measured."""
        if not self.looks:
            return ["no size reached"]
        last = self.looks[-1]
        found = []
        if last.bytes_per_game > GOAL_BYTES:
            found.append(f"disk: {last.bytes_per_game:,.0f} bytes a game (goal {GOAL_BYTES:,})")
        if last.files_per_game > GOAL_FILES:
            found.append(f"disk: {last.files_per_game:.3f} files a game (goal {GOAL_FILES})")
        timed = {
            "ladder board, a first start's look": last.board_first_ms,
            "ladder board after a restart": last.board_cold_ms,
            "ladder board, warm": last.board_warm_ms,
            "a refit's hand-off": last.refit_ms,
            "replay by id": last.replay_ms,
            "author's ladder": last.author_ms,
            "arena league check": last.check_ms,
        }
        found += [
            f"{what}: {ms:,.0f} ms at {last.games:,} games (goal {GOAL_MS:.0f})"
            for what, ms in timed.items()
            if ms > GOAL_MS
        ]
        return found

    def lines(self) -> list[str]:
        lines = [
            "games      bytes/game  files/game  board first  (all, s)  board cold  board warm"
            "  refit"
            "  replay  author  check  check --full (ms)"
        ]
        for look in self.looks:
            lines.append(
                f"{look.games:>9,}  {look.bytes_per_game:>10,.0f}  {look.files_per_game:>10.4f}"
                f"  {look.board_first_ms:>11,.1f}  {look.board_rated_s:>8,.0f}"
                f"  {look.board_cold_ms:>10,.1f}  {look.board_warm_ms:>10,.1f}"
                f"  {look.refit_ms:>5,.1f}"
                f"  {look.replay_ms:>6,.1f}  {look.author_ms:>6,.0f}  {look.check_ms:>5,.0f}"
                f"  {look.check_full_ms:>17,.0f}"
            )
        lines.append(f"({self.seconds:.0f} s in all)")
        lines += [f"MISSED {line}" for line in self.findings()] or ["PASS: every goal met"]
        return lines

    def to_json(self) -> Json:
        return {
            "looks": [look.to_json() for look in self.looks],
            "seconds": round(self.seconds, 1),
            "goals": {"ms": GOAL_MS, "bytes_per_game": GOAL_BYTES, "files_per_game": GOAL_FILES},
            "findings": self.findings(),
        }


class Season:
    """A league folder its rounds are recorded into, one after another."""

    def __init__(self, root: Path, games: int, seed: int = 1) -> None:
        self.root = root
        self.results = root / "results"
        self.league = root / "league.sqlite"
        self.results.mkdir(parents=True, exist_ok=True)
        self.store: LeagueStore = open_store(self.league)
        self.rng = random.Random(seed)
        self.rounds = 0
        self.games = 0
        self.start = 1_790_000_000.0
        self.pace = 7 * DAY_S / max(1, games)
        """Seconds of the simulated week a game takes: the week ends with the last game."""
        self.ruleset = engine.Ruleset()

    def close(self) -> None:
        self.store.close()

    def play_round(self) -> None:
        """One round of three games: recorded, stored, finished and folded."""
        number = self.rounds
        self.rounds += 1
        name = f"ladder-{number:06d}"
        seed = self.rng.randbytes(32)
        seats = tuple(sorted(self.rng.sample(BOTS, 3)))
        when = self.start + self.games * self.pace
        info = TournamentInfo.from_json(self._info(name, seats, when, seed))
        (self.results / name).mkdir()
        folder = TournamentFolder.lay_out(self.results / name, info, seed)
        info = info.with_entrants(seats, 3, info.bots, ())
        folder.write_info(info)
        self.store.add_tournament(name, info.to_json(), started=when)
        for index, game in enumerate(schedule_of(info, seed)):
            spec = GameSpec(game.game_id, game.players, game.deal_key, self.ruleset)
            record = self._game(spec, when + index * self.pace)
            line = folder.record_game(record, game.index)
            self.store.add_game(name, line)
            self.games += 1
        folder.write_info(info.as_finished(seed.hex(), when + 3 * self.pace, None))
        fold(folder.root)

    def _info(self, name: str, seats: tuple[str, ...], when: float, seed: bytes) -> Json:
        """A round's tournament.json as a league server's ladder writes it (its bots
        submitted versions, their paths and hashes the size of real ones)."""
        lineup = f"{self.root}/submissions/lineups/{hashlib.sha256(name.encode()).hexdigest()[:16]}"
        bots = {}
        for bot in seats:
            sha = hashlib.sha256(bot.encode()).hexdigest()
            version = {"number": 1, "sha256": sha, "source": f"{self.root}/versions/{sha}/source"}
            bots[bot] = {"path": f"{lineup}/{bot}", "files_sha256": sha, "version": version}
        return {
            "id": name,
            "status": "running",
            "created": when,
            "bots_dir": lineup,
            "league": str(self.league),
            "server": True,
            "ruleset": self.ruleset.to_mapping(),
            "table_size": 3,
            "games": 3,
            "jobs": 2,
            "move_time": 1.0,
            "seed_sha256": hashlib.sha256(seed).hexdigest(),
            "deals": "own",
            "bots": bots,
            "isolation": [
                "bots are sandboxed (bubblewrap: own PID, network, IPC, UTS, user and mount "
                "namespaces, no capabilities, only the referee's socket)",
                "limits per bot: memory 8192 MiB (cgroup and address space), processes 512 "
                "(cgroup), CPU 21600 s, open files 1024, scratch /tmp 64 MiB",
            ],
        }

    def _game(self, spec: GameSpec, started: float) -> GameRecord:
        """A plausible game: rounds of a deal, bids and a dudo until one seat has dice."""
        rng = self.rng
        dice = [5] * len(spec.players)
        events: list[ReplayEvent] = []
        out: list[int] = []
        think: list[list[float]] = [[] for _ in spec.players]
        opener = rng.randrange(len(dice))
        number = 0
        while len(out) < len(dice) - 1:
            number += 1
            hands = tuple(tuple(sorted(rng.randint(1, 6) for _ in range(n))) for n in dice)
            events.append(Deal(number, opener, False, hands))
            seat, count = opener, 1
            for _ in range(rng.randint(2, 7)):
                ms = round(rng.uniform(0.3, 4.0), 3)
                think[seat].append(ms)
                action = f"bid {count} {rng.randint(2, 6)}"
                events.append(Decision(seat, action, ms, cpu_ms=round(ms * 0.6, 3)))
                count += rng.randint(0, 1)
                seat = self._next(seat, dice)
            events.append(Decision(seat, "dudo", round(rng.uniform(0.3, 4.0), 3)))
            loser = rng.choice([s for s in range(len(dice)) if dice[s]])
            events.append(RoundEnd(engine.RoundEnd.DUDO, rng.randint(0, 6), loser, -1))
            dice[loser] -= 1
            if dice[loser] == 0:
                out.append(loser)
            opener = loser if dice[loser] else self._next(loser, dice)
        winner = next(s for s in range(len(dice)) if dice[s])
        order = (winner, *reversed(out))
        record = GameRecord(spec, order=order, events=events, think_ms=think)
        record.decisions = sum(isinstance(e, Decision) for e in events)
        record.started, record.duration = started, round(rng.uniform(0.05, 0.4), 3)
        record.round_trips = [None] * len(dice)
        return record

    @staticmethod
    def _next(seat: int, dice: list[int]) -> int:
        for step in range(1, len(dice) + 1):
            after = (seat + step) % len(dice)
            if dice[after]:
                return after
        return seat


def _median_ms(work: Callable[[], object], looks: int = LOOKS) -> float:
    times = []
    for _ in range(looks):
        began = time.perf_counter()
        work()
        times.append((time.perf_counter() - began) * 1000)
    return statistics.median(times)


def look(season: Season) -> Look:
    """The disk and the timed looks at the record as it stands."""
    from arena.cli.replay import find_replay
    from arena.league.ladder.board import LadderBoard
    from arena.league.ladder.play import BOARD_BUDGET_S
    from arena.league.ladder.ratings import VersionRatings
    from arena.league.ladder.refit import FitJob
    from arena.league.ladder.snapshot import SNAPSHOT
    from arena.tournament.results.upkeep.check import check

    size, files = on_disk([season.results, *_store_files(season.league)])
    measured = season.games
    store = season.store

    def started() -> tuple[LadderBoard, float]:  # a start: its snapshot read, if any
        began = time.perf_counter()
        board = LadderBoard(VersionRatings(season.results), season.results)
        board.read(store, (), BOARD_BUDGET_S)
        return board, (time.perf_counter() - began) * 1000

    (season.results / SNAPSHOT).unlink(missing_ok=True)
    began = time.perf_counter()
    first, first_ms = started()  # no snapshot: a look, then the rounds rated a look at a time
    while first.behind:
        first.read(store, (), BOARD_BUDGET_S)
    rated_s = time.perf_counter() - began
    first.save()  # as the ladder does when it stops
    board, cold = started()  # the next start
    season.play_round()  # one more round, as between two looks of a running server

    def status() -> list[LeaderboardRow]:  # `arena admin ladder status`: `Ladder.status`
        table = board.read(store, (), BOARD_BUDGET_S).state.rated().current({})
        return [s.row(rank) for rank, (_, s) in enumerate(table, start=1)]

    warm = _median_ms(status)
    fed = board.read(store, ())
    refit = _median_ms(lambda: pickle.dumps(FitJob(fed.finished())))

    def replay() -> None:
        number = season.rng.randrange(season.rounds)
        found = find_replay(f"ladder-{number:06d}/u000-t000-r1", season.results)
        found.replay()

    def author() -> None:  # the author page's ladder: its row of the status, its rating path
        next(row for row in status() if row.bot == BOTS[0])
        board.read(store, (), BOARD_BUDGET_S).state.paths.get(BOTS[0], [])

    def checked(full: bool = False) -> None:
        done = check(season.league, [season.results], full=full)
        if done.differences:
            raise AssertionError(f"arena league check: {done.differences[0]}")

    whole = _median_ms(lambda: checked(True), 1)  # every game; its agreement remembered

    def since() -> None:  # as an organiser checks a running ladder: a round or so since
        season.play_round()
        began = time.perf_counter()
        checked()
        times.append((time.perf_counter() - began) * 1000)

    times: list[float] = []
    for _ in range(LOOKS):
        since()

    return Look(
        games=season.games,
        bytes_per_game=size / measured,
        files_per_game=files / measured,
        board_first_ms=first_ms,
        board_rated_s=rated_s,
        board_cold_ms=cold,
        board_warm_ms=warm,
        refit_ms=refit,
        replay_ms=_median_ms(replay),
        author_ms=_median_ms(author, 3),
        check_ms=statistics.median(times),
        check_full_ms=whole,
    )


def _store_files(league: Path) -> list[Path]:
    return [league, *(league.with_name(league.name + s) for s in ("-wal", "-shm"))]


def run_season(root: Path, games: int, say: Callable[[str], None]) -> SeasonFigures:
    """Record `games` games of ladder rounds under `root`, looking at each checkpoint it
    reaches (and at the end, if that is none)."""
    began = time.monotonic()
    season = Season(root, games)
    marks = [n for n in CHECKPOINTS if n <= games] or [games]
    if marks[-1] != games:
        marks.append(games)
    looks = []
    try:
        for mark in marks:
            while season.games < mark:
                season.play_round()
            say(f"season: {season.games:,} games recorded ({time.monotonic() - began:.0f} s)")
            looks.append(look(season))
            say("  " + json.dumps(looks[-1].to_json()))
    finally:
        season.close()
    os.sync()
    return SeasonFigures(tuple(looks), time.monotonic() - began)
