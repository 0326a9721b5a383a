"""A tournament's replays, wherever they are kept: one file a game in its folder, or, for a
round folded into its day (`arena.tournament.results.days`), a member of the day's
`replays.z`. Every reader of a replay (`arena replay`, verify, the pages, the export)
asks here, so none needs to know which."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.records import GameLine, RecordError, Replay
from arena.tournament.results.days import DayIndex, FoldedRound, find_round
from arena.tournament.results.folder import ResultsError, TournamentFolder, replay_problem
from arena.tournament.results.pruning import pruned_games


class Replays(Protocol):
    def pruned(self, game: str) -> bool:
        """Whether the game's replay was let go (`arena league prune`), its result kept."""
        ...

    def text(self, game: str) -> bytes | None:
        """The replay's bytes as written when it was played; None when there is none."""
        ...

    def read(self, line: GameLine) -> Replay | str:
        """The replay of the game `line` records; what is wrong, if it is not there or not
        that game's."""
        ...


@dataclass(frozen=True, slots=True)
class FolderReplays:
    folder: TournamentFolder

    def _path(self, game: str) -> Path:
        return self.folder.replays / f"{game}.json"

    def pruned(self, game: str) -> bool:
        return game in pruned_games(self.folder.root) and not self._path(game).exists()

    def text(self, game: str) -> bytes | None:
        try:
            return self._path(game).read_bytes()
        except OSError:
            return None

    def read(self, line: GameLine) -> Replay | str:
        path = self._path(line.game)
        problem = replay_problem(path, line)
        if problem is not None:
            return problem
        return Replay.from_json(json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True, slots=True)
class FoldedReplays:
    folded: FoldedRound

    def pruned(self, game: str) -> bool:
        stored = self.folded.replays.get(game)
        return stored is not None and (stored.at < 0 or self.folded.pruned)

    def text(self, game: str) -> bytes | None:
        stored = self.folded.replays.get(game)
        if stored is None or stored.at < 0:
            return None
        try:
            return self.folded.replay_bytes(game)
        except ResultsError:
            return None

    def read(self, line: GameLine) -> Replay | str:
        where = self.folded.root
        try:
            data = self.folded.replay_bytes(line.game) if line.game in self.folded.replays else None
        except ResultsError as error:
            return str(error)
        if data is None:
            return f"the replay of {line.game} is missing ({where})"
        try:
            replay = Replay.from_json(json.loads(data))
        except (ValueError, RecordError) as error:
            return f"the replay of {line.game} is damaged ({where}: {error})"
        if (replay.game, replay.players, replay.ranking) != (line.game, line.players, line.ranking):
            return (
                f"the replay of {line.game} is damaged ({where}: another game, or another result)"
            )
        return replay


class ReplayLookup:
    """Replays by tournament and game under a results folder: its folder's file if the
    tournament still has a folder, else its folded round's. Given a `DayIndex`, many looks
    read the days' index once; without, each searches it (one look: a page, `arena replay`)."""

    def __init__(self, results: Path, index: DayIndex | None = None) -> None:
        self.results = results
        self._index = index

    def folded(self, tournament: str) -> FoldedRound | None:
        if self._index is None:
            return find_round(self.results, tournament)
        return self._index.find(tournament)

    def replays(self, tournament: str) -> Replays | None:
        """The tournament's replays; None when it has neither a folder nor a folded round."""
        folder = self.results / tournament
        if (folder / "tournament.json").is_file():
            return FolderReplays(TournamentFolder(folder))
        folded = self.folded(tournament)
        return None if folded is None else FoldedReplays(folded)

    def text(self, tournament: str, game: str) -> bytes | None:
        """A replay's bytes, or None when it has none (never played, pruned, gone)."""
        replays = self.replays(tournament)
        return None if replays is None else replays.text(game)

    def replay(self, tournament: str, game: str) -> Replay | None:
        data = self.text(tournament, game)
        if data is None:
            return None
        try:
            return Replay.from_json(json.loads(data))
        except (ValueError, RecordError):
            return None
