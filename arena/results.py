"""A tournament's folder: everything it did, written so that a crash loses nothing.

    results/<tournament>/
        tournament.json     config, ruleset, bots and their hashes, the seed's commitment
                            (and the seed, once finished)
        seed.secret         the seed, kept private until the end so a run can resume
        games.jsonl         one line per finished game, appended and fsynced as it ends
        replays/<game>.json every deal and action of the game
        leaderboard.json / leaderboard.csv
        logs/               each bot's output and build log

`games.jsonl` is the commit point: a game is done when its line is on disk.
Its replay is written (and synced) first, so a listed game always has one.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import statistics
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.match import GameRecord
from arena.ratings import GameResult, Standing


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text`, never leaving a half-written file behind."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(tmp, path)
    _sync_dir(path.parent)


def _sync_dir(folder: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def game_line(record: GameRecord, index: int) -> dict[str, Any]:
    spec = record.spec
    medians = {}
    for seat, times in enumerate(record.think_ms):
        if times:
            medians[spec.players[seat]] = round(statistics.median(times), 3)
    return {
        "game": spec.game_id,
        "index": index,
        "players": list(spec.players),
        "deal_key": spec.deal_key,
        "ranking": list(record.ranking),
        "faults": [f.to_json() for f in record.faults],
        "decisions": record.decisions,
        "think_ms": medians,
        "started": round(record.started, 3),
        "duration_s": round(record.duration, 3),
    } | ({"referee_late": record.referee_late} if record.referee_late else {})


def result_of(line: dict[str, Any]) -> GameResult:
    faults: dict[str, int] = {}
    for fault in line["faults"]:
        faults[fault["bot"]] = faults.get(fault["bot"], 0) + 1
    return GameResult(tuple(line["ranking"]), faults, dict(line["think_ms"]))


class TournamentFolder:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.games_path = root / "games.jsonl"
        self.replays = root / "replays"
        self.logs = root / "logs"

    @classmethod
    def create(cls, root: Path, info: dict[str, Any], seed: bytes) -> TournamentFolder:
        root.mkdir(parents=True, exist_ok=False)
        folder = cls(root)
        folder.replays.mkdir()
        folder.logs.mkdir()
        secret = root / "seed.secret"
        secret.write_text(seed.hex() + "\n")
        secret.chmod(0o600)
        folder.write_info(info)
        folder.games_path.touch()
        return folder

    def info(self) -> dict[str, Any]:
        data: dict[str, Any] = json.loads((self.root / "tournament.json").read_text())
        return data

    def write_info(self, info: dict[str, Any]) -> None:
        write_atomic(self.root / "tournament.json", json.dumps(info, indent=2) + "\n")

    def seed(self) -> bytes:
        return bytes.fromhex((self.root / "seed.secret").read_text().strip())

    def games(self) -> Iterator[dict[str, Any]]:
        """The finished games, in the order they finished; a torn last line is ignored."""
        if not self.games_path.exists():
            return
        with self.games_path.open(encoding="utf-8") as lines:
            for line in lines:
                if not line.endswith("\n"):
                    return  # the process died mid-write: that game is not done
                yield json.loads(line)

    def repair(self) -> None:
        """Cut a torn last line left by a crash, so appends start on a fresh line."""
        if not self.games_path.exists():
            return
        data = self.games_path.read_bytes()
        if data and not data.endswith(b"\n"):
            with self.games_path.open("r+b") as out:
                out.truncate(data.rfind(b"\n") + 1)
                os.fsync(out.fileno())

    def record_game(self, record: GameRecord, index: int) -> dict[str, Any]:
        replay = {
            "game": record.spec.game_id,
            "players": list(record.spec.players),
            "deal_key": record.spec.deal_key,
            "ruleset": record.spec.ruleset.to_mapping(),
            "ranking": list(record.ranking),
            "events": record.events,
        }
        write_atomic(self.replays / f"{record.spec.game_id}.json", json.dumps(replay) + "\n")
        line = game_line(record, index)
        with self.games_path.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
            out.flush()
            os.fsync(out.fileno())
        return line

    def write_leaderboard(self, table: list[Standing]) -> None:
        rows = [s.to_json(rank) for rank, s in enumerate(table, start=1)]
        write_atomic(self.root / "leaderboard.json", json.dumps(rows, indent=2) + "\n")
        tmp = self.root / "leaderboard.csv.tmp"
        with tmp.open("w", newline="", encoding="utf-8") as out:
            if rows:
                writer = csv.DictWriter(out, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, self.root / "leaderboard.csv")
