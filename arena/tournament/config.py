"""What a tournament is asked to be: its config, the venue it may play on, its one error.

Kept apart from the run so the CLI and the league can build, check and name a
tournament without the machinery that plays one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots.buildnet import BuildNetwork
from arena.bots.limits import ResourceLimits
from arena.bots.sandbox import SandboxMode
from arena.errors import ArenaError
from arena.referee.deadline import DEFAULT_TIME_MARGIN, TimeControl
from arena.referee.server import Referee
from arena.tournament.results.league_writes import DEFAULT_STORE_PATIENCE_S
from arena.tournament.schedule.round_robin import Deals
from engine import Ruleset

if TYPE_CHECKING:  # the run's own module plays it; this one only names its summary
    from arena.tournament.report.summary import Summary


class TournamentError(ArenaError):
    """The tournament cannot go on; the message says why."""


class StoppedError(TournamentError):
    """The run stopped before its end for a fault of the disk or the store, its books closed
    as far as they could be: `summary` says what it played (for the HTML replays, say)."""

    def __init__(self, message: str, summary: Summary) -> None:
        super().__init__(message)
        self.summary = summary


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def valid_tournament_name(name: str) -> bool:
    """A name that stays one folder inside the results folder: no '/', no '..'."""
    return bool(_NAME.match(name)) and ".." not in name


@dataclass(frozen=True, slots=True)
class AbPlan:
    """An A/B test (`arena ab`): NEW and OLD by name, and the hypotheses of its sequential
    test, kept with the run so that a resume runs the same test."""

    new: str
    old: str
    elo0: float
    elo1: float
    alpha: float
    beta: float


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    bots_dir: Path | None
    """Local bots to start; None when only remote bots play (on a league server)."""
    out: Path = Path("results")
    table_size: int | None = None
    """Players per game; None means every entrant, up to 6."""
    games: int = 120
    jobs: int = 6
    ruleset: Ruleset = field(default_factory=Ruleset)
    move_time: float = 1.0
    time_margin: float = DEFAULT_TIME_MARGIN
    """Seconds added to each decision's limit for scheduling jitter (bots are told `move_time`).

    25 ms: on a loaded 2-core machine, instant bots at a 50 ms move time were
    late about once in a thousand decisions without it, never with it
    (`arena bench --timing`)."""
    time_bank: float = 0.0
    """Seconds each bot has per game to pay for decisions over `move_time` (see `TimeControl`)."""
    increment: float = 0.0
    """Seconds added to a bot's bank after each decision it answered in time."""
    timeouts: bool = True
    """False in debug mode (`--no-timeout`): no decision has a deadline."""
    seed: bytes | None = None
    league: Path | str | None = None
    """The league store: an SQLite file or a postgresql:// URL; None means `out/league.sqlite`."""
    store_patience: float = DEFAULT_STORE_PATIENCE_S
    """Seconds to wait for a league store that cannot be reached (a database restarting, a
    lock another process holds) before the run stops; play goes on meanwhile."""
    connect_timeout: float = 20.0
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    name: str | None = None
    reconnect_grace: float = 60.0
    """On a league server: how long to wait for a disconnected bot before its games are dropped."""
    deals: Deals = Deals.OWN
    sandbox: SandboxMode = SandboxMode.AUTO
    build_network: BuildNetwork = BuildNetwork.ISOLATED
    """The network a sandboxed build gets (`arena.bots.buildnet`)."""
    recover: int = 0
    """Restarts allowed per local bot whose process dies (`--recover`); 0: a crash is final."""
    rebuild: bool = False
    """Build every bot, even one unchanged since its last good build (`arena.bots.buildstamp`)."""
    gauntlet: str | None = None
    """A bot to seat at every table (`arena run --gauntlet`)."""
    ab: AbPlan | None = None
    """An A/B test's plan (`arena ab`): NEW and OLD by name and the test's hypotheses, kept
    in tournament.json; the schedule is then pairs, the rest of the entrants the field."""
    extra_bots: tuple[Path, ...] = ()
    """Bot entries outside `bots_dir` that play too (an A/B test's NEW and OLD)."""
    until_confident: float | None = None
    """Stop starting rotation groups once every adjacent pair on the leaderboard is separated
    at this level (the batch fit's bootstrap); None plays the whole schedule."""

    @property
    def league_store(self) -> Path | str:
        return self.league if self.league is not None else self.out / "league.sqlite"

    def time_control(self) -> TimeControl:
        """The time control asked for; `TimeControlError` when it cannot be played."""
        return TimeControl(self.move_time, self.time_bank, self.increment, self.timeouts)


@dataclass(frozen=True, slots=True)
class Venue:
    """A referee that is already running (a league server's), and its remote entrants."""

    referee: Referee
    port: int
    remote: tuple[str, ...]
    local_ca: Path | None = None
    """What local bots trust when the referee's Unix socket speaks TLS; None when it does not."""


def too_few(playing: Sequence[str], how: str = "") -> str:
    """The one way the arena says a night cannot be: fewer than two bots to seat (`how`:
    what `playing` are, e.g. " connected")."""
    return f"fewer than two bots can play ({', '.join(playing) or 'none'}{how})"
