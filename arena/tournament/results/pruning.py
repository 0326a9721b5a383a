"""Old replays and bot logs let go, the results kept: what a season's disk can hold.

A ladder plays all day, and every game leaves a replay and its share of the
bots' logs. An organiser keeps the results and the ratings for good but not
every game's telling: `arena league prune --before DATE` removes the replays
(and their HTML pages) of finished tournaments' games that began before
DATE, and the bots' logs of a tournament whose every game is pruned. Its
`games.jsonl`, leaderboard, seed and `tournament.json` stay, and so do the
league store's rows: the ratings do not move.

What was let go is written down first, in the folder's `pruned.json`, each
game with the SHA-256 of the replay it had: `arena verify` then says those
games were pruned (their deals cannot be checked any more) rather than
missing, checks every game still kept as before, and a replay brought back
from a copy can be checked against the hash it had.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from arena.tournament.info import RunStatus
from arena.tournament.results.days import prune_days
from arena.tournament.results.folder import TournamentFolder, write_atomic

PRUNED_FILE = "pruned.json"


@dataclass(frozen=True, slots=True)
class Pruned:
    tournaments: int
    """Tournaments some of whose games were pruned."""
    games: int
    bytes: int
    """Bytes of replays, pages and logs removed."""


def pruned_games(folder: Path) -> dict[str, str]:
    """The games of a tournament folder whose replays were pruned, with each replay's hash."""
    try:
        data = json.loads((folder / PRUNED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(game): str(sha) for game, sha in data.items()}


def prune(results: Sequence[Path], before: float) -> Pruned:
    """Prune every finished tournament folder directly under each of `results`, and every
    day of folded rounds (`arena.tournament.results.days`) that ended before `before`."""
    tournaments = games = removed = 0
    for root in results:
        rounds, count, size = prune_days(root, before)
        tournaments += rounds
        games += count
        removed += size
        for folder in sorted(p for p in root.iterdir() if (p / "tournament.json").is_file()):
            count, size = prune_folder(folder, before)
            if count:
                tournaments += 1
                games += count
                removed += size
    return Pruned(tournaments, games, removed)


def prune_folder(root: Path, before: float) -> tuple[int, int]:
    """Prune one tournament folder's games that began before `before`; (games, bytes).
    A tournament not finished is left whole: its replays are what a resume relies on."""
    folder = TournamentFolder(root)
    try:
        info = folder.info()
    except (OSError, ValueError):
        return 0, 0
    if info.status is not RunStatus.FINISHED:
        return 0, 0
    lines = list(folder.games())
    pruned = pruned_games(root)
    chosen: dict[str, str] = {}
    for line in lines:
        replay = folder.replays / f"{line.game}.json"
        if line.game in pruned or line.started is None or line.started >= before:
            continue
        if replay.is_file() and not replay.is_symlink():
            chosen[line.game] = hashlib.sha256(replay.read_bytes()).hexdigest()
    if not chosen:
        return 0, 0
    # Written down before anything goes: a kill between the two leaves a replay named as
    # pruned that is still there, which verify checks all the same.
    write_atomic(root / PRUNED_FILE, json.dumps(pruned | chosen, indent=1, sort_keys=True) + "\n")
    size = sum(
        _remove(folder.replays / f"{game}.json") + _remove(root / "html" / f"{game}.html")
        for game in chosen
    )
    if all(line.game in pruned or line.game in chosen for line in lines):
        size += sum(_remove(log) for log in folder.logs.glob("*") if log.is_file())
    return len(chosen), size


def _remove(path: Path) -> int:
    try:
        size = path.lstat().st_size
        os.unlink(path)
    except OSError:
        return 0
    return size
