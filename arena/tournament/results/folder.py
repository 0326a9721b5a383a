"""A tournament's folder: everything it did, written so that a crash loses nothing.

    results/<tournament>/
        tournament.json     config, ruleset, bots and their hashes, the seed's commitment
                            (and the seed, once finished), the run id the league knows it by
        seed.secret         the seed, kept private until the end so a run can resume
        games.jsonl         one line per finished game, appended and fsynced as it ends
        replays/<game>.json every deal and action of the game
        leaderboard.json / leaderboard.csv
        cross.json          for every two bots, games together and how often each was ahead
        logs/               each bot's output and build log

`games.jsonl` is the commit point: a game is done when its line is on disk.
Its replay is written (and synced) first, so a listed game always has one.
The file is read back only through the schedule: a line that is no game of
it, or a game's second copy, is reported and left out (a crash cannot write
either, so someone else did), and a line that is no game record at all stops
the run with the file and line named, since guessing would rate games wrongly.
"""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import io
import json
import os
import statistics
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.errors import ArenaError
from arena.records import GameLine, RecordError, Replay
from arena.tournament.info import TournamentInfo
from arena.tournament.results.lock import LOCK_NAME
from arena.tournament.schedule.pairs import build_pairs
from arena.tournament.schedule.round_robin import Deals, ScheduledGame, build

if TYPE_CHECKING:  # named, not used: reading a folder (arena replay, verify) loads none of them
    from arena.rankings import Confidence, Pairing
    from arena.referee.match import GameRecord
    from arena.tournament.report.ratings import Standing

_NEVER_PLAYED_FILES = {
    "tournament.json",
    "seed.secret",
    "games.jsonl",
    "replays",
    "logs",
    LOCK_NAME,
}
"""All that a tournament folder holds until its first game ends."""


class ResultsError(ArenaError):
    """A tournament folder holds what the arena cannot use; the message says where and why."""


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text`, never leaving a half-written file behind."""
    tmp = path.with_name(path.name + ".tmp")
    try:
        with tmp.open("w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()  # a full disk would otherwise keep the partial copy
        raise
    _sync_dir(path.parent)


def _sync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def game_line(record: GameRecord, index: int) -> GameLine:
    spec = record.spec
    medians = {}
    for seat, times in enumerate(record.think_ms):
        if times:
            medians[spec.players[seat]] = round(statistics.median(times), 3)
    return GameLine(
        game=spec.game_id,
        index=index,
        players=spec.players,
        deal_key=spec.deal_key,
        ranking=record.ranking,
        faults=tuple(record.faults),
        decisions=record.decisions,
        think_ms=medians,
        started=round(record.started, 3),
        duration_s=round(record.duration, 3),
        referee_late=tuple(record.referee_late),
    )


def parse_line(text: str, path: Path, number: int) -> GameLine:
    """One line of games.jsonl as a game record, or a ResultsError saying where it went wrong."""
    try:
        return GameLine.from_json(json.loads(text))
    except RecordError as error:
        problem = str(error)
    except ValueError as error:
        problem = f"is not JSON ({error})"
    raise ResultsError(
        f"{path}, line {number}, {problem}. The arena never writes such a line: restore the "
        f"file from a backup, or delete that line (its game, if any, is then played again on "
        f"resume), and try again"
    )


@dataclass(frozen=True, slots=True)
class FinishedGames:
    """The games of the schedule that games.jsonl records, and what it holds besides."""

    lines: tuple[GameLine, ...]
    """One per finished game of the schedule, in the order they finished."""
    problems: tuple[str, ...]
    """A sentence for each line left out."""

    @property
    def ids(self) -> set[str]:
        return {line.game for line in self.lines}


def replay_problem(path: Path, line: GameLine) -> str | None:
    """Why the replay at `path` is not the replay of the game `line` records, if it is not."""
    try:
        read_replay(path, line)
    except FileNotFoundError:
        return f"the replay of {line.game} is missing ({path})"
    except (OSError, ValueError) as error:
        return f"the replay of {line.game} is damaged ({path}: {error})"
    return None


def read_replay(path: Path, line: GameLine | None = None) -> Replay:
    """The replay at `path`; a RecordError (a ValueError) if it is none, or is not `line`'s."""
    replay = Replay.from_json(json.loads(path.read_text(encoding="utf-8")))
    if line is not None and (replay.game, replay.players, replay.ranking) != (
        line.game,
        line.players,
        line.ranking,
    ):
        raise RecordError("another game, or another result")
    return replay


def schedule_of(info: TournamentInfo, seed: bytes) -> list[ScheduledGame]:
    """The games a tournament plans, from its seed."""
    if info.plan.ab is not None:  # an A/B test: `games` is twice its pairs
        new, old = info.plan.ab.new, info.plan.ab.old
        field = [name for name in info.players() if name not in (new, old)]
        return build_pairs(new, old, field, info.size(), info.plan.games // 2, seed)
    deals = info.plan.deals or Deals.OWN
    return build(
        list(info.players()), info.size(), info.plan.games, seed, deals, info.plan.gauntlet
    )


class TournamentFolder:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.games_path = root / "games.jsonl"
        self.replays = root / "replays"
        self.logs = root / "logs"

    @classmethod
    def lay_out(cls, root: Path, info: TournamentInfo, seed: bytes) -> TournamentFolder:
        """Write a new tournament into `root`, over whatever a start that never played left."""
        folder = cls(root)
        folder.replays.mkdir(exist_ok=True)
        folder.logs.mkdir(exist_ok=True)
        secret = root / "seed.secret"
        # Created private: written first and chmod-ed after, it would be readable by all for a
        # moment (and a start that never played may have left one behind).
        secret.unlink(missing_ok=True)
        fd = os.open(secret, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(seed.hex() + "\n")
        folder.games_path.write_bytes(b"")
        folder.write_info(info)
        folder.clean_tmp()
        return folder

    def info(self) -> TournamentInfo:
        """The run's `tournament.json`; an OSError, or a ValueError for one that is not."""
        return TournamentInfo.from_json(json.loads((self.root / "tournament.json").read_text()))

    def write_info(self, info: TournamentInfo) -> None:
        write_atomic(self.root / "tournament.json", json.dumps(info.to_json(), indent=2) + "\n")

    def seed(self) -> bytes:
        """The run's secret seed; a ResultsError when it is gone or damaged, since without it
        no further game can be dealt as the commitment promised."""
        path = self.root / "seed.secret"
        try:
            return bytes.fromhex(path.read_text().strip())
        except (OSError, ValueError) as error:
            why = error.strerror if isinstance(error, OSError) and error.strerror else "damaged"
            raise ResultsError(
                f"{path} cannot be read ({why}): the run's dice come from it, so it cannot "
                "resume without it; restore it from a copy, or start a new run"
            ) from None

    def schedule(self, info: TournamentInfo) -> list[ScheduledGame]:
        """The games the tournament plans, from its seed (revealed, or still secret)."""
        return schedule_of(info, bytes.fromhex(info.seed) if info.seed else self.seed())

    def games(self) -> Iterator[GameLine]:
        """Every line as written, duplicates and all; see `finished` for the games to count."""
        return (line for _, line in self._lines())

    def _lines(self) -> Iterator[tuple[int, GameLine]]:
        """Every line with its number, in the order written; a torn last line is ignored."""
        if not self.games_path.exists():
            return
        with self.games_path.open(encoding="utf-8", errors="replace") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.endswith("\n"):
                    return  # the process died mid-write: that game is not done
                yield number, parse_line(line, self.games_path, number)

    def finished(self, schedule: Sequence[ScheduledGame]) -> FinishedGames:
        """The games of `schedule` on record, each once, as they were planned."""
        planned = {g.game_id: g for g in schedule}
        kept: dict[str, GameLine] = {}
        problems = []
        for number, line in self._lines():
            game = planned.get(line.game)
            where = f"{self.games_path.name} line {number}"
            if game is None:
                problems.append(f"{where}: {line.game} is no game of the schedule; ignored")
            elif (line.index, line.players) != (game.index, game.players):
                problems.append(
                    f"{where}: {line.game} is not the game the schedule planned "
                    f"(other index or players); ignored"
                )
            elif line.game in kept:
                problems.append(f"{where}: a second copy of {line.game}; ignored")
            else:
                kept[line.game] = line
        return FinishedGames(tuple(kept.values()), tuple(problems))

    def replay_problems(self, lines: Sequence[GameLine]) -> list[str]:
        """A sentence for each finished game whose replay is missing or damaged."""
        found = (replay_problem(self.replays / f"{x.game}.json", x) for x in lines)
        return [problem for problem in found if problem is not None]

    def never_played(self) -> bool:
        """Whether this is a tournament folder stopped before its first game, and so reusable."""
        names = {p.name.removesuffix(".tmp") for p in self.root.iterdir()}
        if not names <= _NEVER_PLAYED_FILES or any(self.replays.glob("*")):
            return False  # not ours, or it has played
        if self.games_path.is_file() and self.games_path.stat().st_size:
            return False
        try:
            return not self.info().played
        except FileNotFoundError:
            return True  # killed before it wrote its tournament.json
        except (OSError, ValueError):
            return False

    def clean_tmp(self) -> list[Path]:
        """Remove the half-written copies a crash or a full disk left; return them."""
        leftovers = [*self.root.glob("*.tmp"), *self.replays.glob("*.tmp")]
        for path in leftovers:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
        return leftovers

    def repair(self) -> None:
        """Cut a torn last line left by a crash, so appends start on a fresh line."""
        if not self.games_path.exists():
            return
        data = self.games_path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.games_path.open("r+b") as out:
                out.truncate(data.rfind(b"\n") + 1)
                os.fsync(out.fileno())

    def record_game(self, record: GameRecord, index: int) -> GameLine:
        replay = Replay(
            game=record.spec.game_id,
            players=record.spec.players,
            deal_key=record.spec.deal_key,
            ruleset=record.spec.ruleset,
            ranking=record.ranking,
            events=tuple(record.events),
            round_trip_ms=tuple(
                None if rtt is None else round(rtt * 1_000_000) / 1000 for rtt in record.round_trips
            ),
            tournament=self.root.name,
        )
        text = json.dumps(replay.to_json()) + "\n"
        write_atomic(self.replays / f"{record.spec.game_id}.json", text)
        line = game_line(record, index)
        data = (json.dumps(line.to_json()) + "\n").encode()
        fd = os.open(self.games_path, os.O_WRONLY | os.O_APPEND)
        try:
            start = os.fstat(fd).st_size
            try:
                written = 0
                while written < len(data):
                    written += os.write(fd, data[written:])
                os.fsync(fd)
            except OSError:
                # Half a line would glue itself to the next game's: take it back.
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, start)
                raise
        finally:
            os.close(fd)
        return line

    def write_leaderboard(
        self,
        table: list[Standing],
        sure: Confidence | None = None,
        outliers: Mapping[str, tuple[float, float]] | None = None,
        round_trips: Mapping[str, float] | None = None,
    ) -> None:
        """leaderboard.json and .csv; with `sure`, each row has the batch fit's confidence,
        with `outliers` each bot's 99th percentile and slowest decision (ms), with
        `round_trips` its network round trip (ms), by name."""
        outliers = outliers or {}
        round_trips = round_trips or {}
        rows = [
            dataclasses.replace(
                s.row(rank, sure.bot(s.name) if sure else None),
                p99_decision_ms=outliers.get(s.name, (None, None))[0],
                slowest_decision_ms=outliers.get(s.name, (None, None))[1],
                round_trip_ms=round_trips.get(s.name),
            ).to_json()
            for rank, s in enumerate(table, start=1)
        ]
        write_atomic(self.root / "leaderboard.json", json.dumps(rows, indent=2) + "\n")
        text = io.StringIO()
        if rows:
            # A bot that never answered has no times: the columns are every row's.
            columns = max((list(row) for row in rows), key=len)
            writer = csv.DictWriter(text, fieldnames=columns)
            writer.writeheader()
            writer.writerows(rows)
        write_atomic(self.root / "leaderboard.csv", text.getvalue())

    def write_cross(self, pairings: Sequence[Pairing]) -> None:
        """cross.json: for every two bots that met, how often the first finished ahead."""
        rows = [p.to_json() for p in pairings]
        write_atomic(self.root / "cross.json", json.dumps(rows, indent=2) + "\n")
