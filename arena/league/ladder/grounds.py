"""What the ladder is handed of the league server: the common grounds (`arena.league.grounds`:
the store, the submitted versions, the results folder and the nights' defaults), and its own
few things beside them: who is dialled in, who is at a request's test games, the venue to
play at, and the metrics that follow it.

Handed the whole server, the ladder reached into its lobby, referee, TLS and port, and the
ladder's module and the server's imported each other, a loop only the type checker saw.
`LeagueServer` fits this as it is; the tests hand the ladder the server all the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol

from arena.league.grounds import Grounds, Settings
from arena.tournament.config import Venue


class LadderSettings(Settings, Protocol):
    """The server's settings the ladder reads beside the common ones (`LeagueConfig`)."""

    @property
    def league(self) -> Path | str:
        """The league store, as given: its secret is kept beside it."""
        ...

    @property
    def ladder_compact(self) -> bool:
        """Whether a finished round is folded into its day's record (`--ladder-keep-rounds`
        off)."""
        ...


class Lobby(Protocol):
    """The referee's lobby, as far as the ladder's field goes."""

    def connected(self) -> Mapping[str, int]:
        """Open sessions per entrant dialled in."""
        ...


class Seated(Protocol):
    """The entrants at (or held for) a request's test games, whom no table may seat."""

    @property
    def seated(self) -> frozenset[str]: ...


class LadderMetrics(Protocol):
    """Where /metrics reads the ladder from at each scrape."""

    def follow_ladder(
        self, kinds: tuple[str, ...], read: Callable[[], tuple[bool, str | None]]
    ) -> None: ...


class LadderGrounds(Grounds, Protocol):
    """What the ladder uses of the league server (`LeagueServer` has it)."""

    @property
    def config(self) -> LadderSettings: ...
    @property
    def lobby(self) -> Lobby: ...
    @property
    def requests(self) -> Seated: ...
    @property
    def metrics(self) -> LadderMetrics: ...
    def venue(self, remote: tuple[str, ...]) -> Venue:
        """Where a round plays: the running referee and port, its `remote` entrants, and the
        CA local bots trust (with TLS)."""
        ...
