"""The soak's clock and what it has seen while the ladder plays: games, samples, the kill.

Times are the wall clock's (seconds since the epoch), because the server stamps its events
with it: a game is as late as the server said it finished, not as late as the soak read it.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence

from bench.soak_figures import KillCheck, Sample
from bench.soak_server import Event


class Watch:
    def __init__(self, minutes: float, kill: bool, every: float = 5.0) -> None:
        self.minutes = minutes
        self.kill = kill
        self.every = every
        """Seconds a sample's readings span."""
        self._server: list[int] = []
        self._tree: list[int] = []
        self._window = 0.0
        self.start = time.time()
        self.games = 0
        self.last_game = 0.0
        self.samples: list[Sample] = []
        self.died = ""
        self._said = 0
        self._killed_at: float | None = None
        self._before: Sequence[str] = ()
        self._restart_s = 0.0
        self._orphans = 0

    def begin(self) -> None:
        """The ladder's play is measured from now."""
        self.start = time.time()
        self._window = self.start
        self.samples.clear()

    def elapsed(self) -> float:
        return time.time() - self.start

    def over(self) -> bool:
        return self.elapsed() >= self.minutes * 60

    def seen(self, event: Event) -> None:
        if event.kind == "ladder_game":
            self.games += 1
            self.last_game = max(self.last_game, event.at)

    def since_game(self) -> float:
        """Seconds since a game last finished, or since play began if none has since."""
        return time.time() - max(self.last_game, self.start)

    def read(self, server_rss: int, tree_rss: int) -> None:
        """A reading of memory, in bytes; the readings of each `every` seconds make a
        sample (a reading of 0, of a server gone, is left out)."""
        if server_rss > 0:
            self._server.append(server_rss)
            self._tree.append(tree_rss)
        if time.time() - self._window < self.every or not self._server:
            return
        self._window = time.time()
        self.samples.append(
            Sample(
                self.elapsed(),
                round(statistics.fmean(self._server)),
                max(self._server),
                round(statistics.fmean(self._tree)),
                max(self._tree),
                self.games,
            )
        )
        self._server.clear()
        self._tree.clear()

    def progress(self) -> str:
        """A line each minute, for the one watching; empty in between."""
        minute = int(self.elapsed() // 60)
        if minute <= self._said or not self.samples:
            return ""
        self._said = minute
        last = self.samples[-1]
        return (
            f"soak: minute {minute}: {self.games} games, server {last.server_rss >> 20} MiB, "
            f"tree {last.tree_rss >> 20} MiB"
        )

    def kill_due(self) -> bool:
        return self.kill and self._killed_at is None and self.elapsed() >= self.minutes * 30

    def killed(self, journaled: Sequence[str]) -> None:
        """The server is killed now, with these games (`round/game`) journaled."""
        self._killed_at = time.time()
        self._before = journaled

    def restarted(self, orphans: int) -> None:
        """It listens again; `orphans` processes of the killed one had outlived it."""
        if self._killed_at is not None:
            self._restart_s = time.time() - self._killed_at
        self._orphans = orphans

    def kill_check(self, journaled: set[str]) -> KillCheck | None:
        """What the kill cost, against the games journaled at the end."""
        if self._killed_at is None:
            return None
        return KillCheck(
            at=self._killed_at - self.start,
            journaled=len(self._before),
            lost=tuple(sorted(set(self._before) - journaled)),
            restart_s=self._restart_s,
            orphans=self._orphans,
        )
