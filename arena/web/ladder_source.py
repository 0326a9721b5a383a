"""What the league's pages read of the league server's ladder, said as protocols.

The CLI hands the pages the league server's ladder, as it hands the server its spectator:
the web imports no part of the league, so the ladder is read through these, which the
ladder and its status record (`arena.league.ladder.status.LadderStatus`) fit. They sit
apart from the views so that the record of what the pages read (`league_view.League`) and
the ladder's views (`ladder_view`) both name them without importing each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.records import LeaderboardRow


class LadderGameView(Protocol):
    @property
    def round(self) -> str: ...
    @property
    def game_id(self) -> str: ...
    @property
    def ranking(self) -> tuple[str, ...]: ...


class LadderTableView(Protocol):
    @property
    def round(self) -> str: ...
    @property
    def seats(self) -> tuple[str, ...]: ...


class LadderStatusView(Protocol):
    @property
    def running(self) -> bool: ...
    @property
    def paused(self) -> bool: ...
    @property
    def table_sizes(self) -> Sequence[int]: ...
    @property
    def tables_said(self) -> str: ...
    @property
    def tables(self) -> Sequence[LadderTableView]: ...
    @property
    def standings(self) -> Sequence[LeaderboardRow]: ...
    @property
    def latest(self) -> Sequence[LadderGameView]: ...
    @property
    def error(self) -> str | None: ...
    @property
    def shown(self) -> bool: ...


class LadderSource(Protocol):
    """A league server's ladder, as the pages read it."""

    @property
    def changes(self) -> int: ...
    def status(self) -> LadderStatusView: ...
    def rating_path(self, name: str) -> Sequence[float]: ...
