"""What a host is told of the tournament it plays for, and what it hands back."""

from __future__ import annotations

from dataclasses import dataclass

from arena.referee.match import GameRecord
from arena.tournament.config import TournamentConfig
from arena.tournament.info import TournamentInfo


@dataclass(frozen=True, slots=True)
class HostPlan:
    """The tournament's essentials for one host: its info (rules, time control, entrants
    once known), the dice seed, its config (how its bots are built, confined and given time
    to connect: the organiser's options as declared, not copied one by one), and its budget."""

    info: TournamentInfo
    seed: bytes
    config: TournamentConfig
    jobs: int
    """Games this host plays at once."""
    max_bots: int | None
    """Bots running at once on this host (`--max-bots-per-host`); None: every bot it needs."""
    bots_dir: str | None
    """The bots folder on the host's machine (a shared path); None: the host's working
    directory, where Ray unpacked the folder it shipped."""


@dataclass(frozen=True, slots=True)
class HostReady:
    """A host, opened: where it runs, the bots it built and can start, what it had to say."""

    node: str
    ready: tuple[str, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class HostGame:
    """One game a host played: its record, the bots it had to start for it (`restarts`: of
    those, the ones it had stopped before, for its budget or a crash), the bots it now has
    running, and what it had to say."""

    record: GameRecord
    starts: int
    restarts: int
    running: tuple[str, ...]
    notes: tuple[str, ...]
