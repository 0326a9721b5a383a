"""What the league server's parts are handed of it: a night ready to play, and the grounds
(the store, the submitted versions, the results folder and the nights' defaults) that a
request's test games and the season's final play on.

Handed the whole server, a part could reach into anything of it (its lobby, its TLS, its
referee) and its module and the server's imported each other, a loop only the type checker
saw. Each part now says which of the server's things it uses, as a protocol: the common
ones here, its own beside it (`request_games.RequestGrounds`, `final_night.FinalGrounds`,
`admin_service.League`). The server fits them as it is, so nothing is copied or kept in
step, and this module imports nothing of the league.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from arena.store import LeagueStore
from arena.submissions.lineups import Lineup
from arena.submissions.versions import Versions
from arena.tournament.config import TournamentConfig


@dataclass(frozen=True, slots=True)
class Night:
    """A night ready to play: its config, the line-up of submitted versions it plays (if
    any), the connected entrants that play it, and the folder it resumes (if it does)."""

    config: TournamentConfig
    lineup: Lineup | None
    remote: tuple[str, ...]
    resume: Path | None


class Settings(Protocol):
    """The server's settings its parts read (`LeagueConfig` has them)."""

    @property
    def out(self) -> Path:
        """The results folder."""
        ...

    @property
    def defaults(self) -> TournamentConfig:
        """The options every tournament the server plays starts from."""
        ...


class Grounds(Protocol):
    """What every game the server plays is kept in and played from."""

    @property
    def store(self) -> LeagueStore: ...
    @property
    def versions(self) -> Versions: ...
    @property
    def config(self) -> Settings: ...
