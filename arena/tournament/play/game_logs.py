"""Each local bot's part of its log in each game, marked as the game begins and as it ends.

The runner says when a game is in play (`GameLogMarks.during`). For each of
its seats that is a bot this arena started, the end of the bot's log is
taken at both moments, and the part between them is added to the log's
index (`arena.bots.run.gamelogs`) as the game ends, before it is recorded. A
game that is not recorded (the run aborted, the tables gone) is marked when
it is played again. A bot of another machine (a remote bot, a cluster
host's) has no log here, and nothing is marked for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from arena.bots.run.gamelogs import GameSlice, append_slice
from arena.bots.run.processes import BotProcess
from arena.referee.match import GameSpec


class GameLogMarks:
    def __init__(self, processes: Mapping[str, BotProcess], note: Callable[[str], None]) -> None:
        """`processes`: the bots started, by name, as the lineup keeps them (a bot started
        again is found there anew)."""
        self._processes = processes
        self._note = note
        self._unmarked: set[str] = set()
        """Bots whose index could not be written, said once each."""

    @contextlib.contextmanager
    def during(self, spec: GameSpec) -> Iterator[None]:
        """Mark the game's part of each local bot's log once the body ends without an error."""
        began: dict[str, tuple[BotProcess, int | None]] = {}
        for name in dict.fromkeys(spec.players):
            process = self._processes.get(name)
            if process is not None:
                began[name] = (process, process.log_offset())
        yield
        for name, (process, start) in began.items():
            # The process it began with, even one that has since ended.
            end, log = process.log_offset(), process.log
            if start is not None and end is not None and log is not None:
                self._add(name, log, GameSlice(spec.game_id, start, end))

    def _add(self, name: str, log: Path, part: GameSlice) -> None:
        failure = append_slice(log, part)
        if failure is not None and name not in self._unmarked:  # the games go on regardless
            self._unmarked.add(name)
            self._note(
                f"{name}: which part of its log each game holds cannot be kept ({failure}); "
                "its whole log is kept, and its page shows that"
            )
