"""What a tournament is asked to be: its config, the venue it may play on, its one error.

Kept apart from the run so the CLI and the league can build, check and name a
tournament without the machinery that plays one. Each option of the config is
declared in it once, with its help and its commands (`arena.tournament.options`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.limits import ResourceLimits
from arena.bots.isolation.sandbox import SandboxMode
from arena.bots.run.capacity import check_jobs, default_jobs
from arena.errors import ArenaError
from arena.rankings.level import LEVEL
from arena.referee.clock.deadline import DEFAULT_TIME_MARGIN, LEAGUE_LAG_ALLOWANCE, TimeControl
from arena.store import recorded
from arena.tournament.kinds import (
    MAX_GAMES,
    MAX_TABLE,
    MIN_MEMORY_MB,
    Choice,
    Count,
    Domain,
    Folder,
    Level,
    OptionError,
    Rules,
    Seconds,
    Seed,
    Store,
    Switch,
    Text,
)
from arena.tournament.options import NIGHT, Command, option, option_made_by, options_of
from arena.tournament.plan import AbPlan, RunPlan
from arena.tournament.results.league_writes import DEFAULT_STORE_PATIENCE_S
from arena.tournament.schedule.round_robin import Deals
from engine import Ruleset

DEFAULT_RESTARTS = 3
"""Restarts per bot per tournament when `--recover` is given without a number."""

if TYPE_CHECKING:  # named here, played elsewhere: the referee and the run load their own
    from arena.referee.service.referee_server import Referee


class TournamentError(ArenaError):
    """The tournament cannot go on; the message says why."""


class TooFewBotsError(TournamentError):
    """Fewer than two bots could play: `skipped` names the ones that could not (each one's
    reason is in the message)."""

    def __init__(self, message: str, skipped: Sequence[str]) -> None:
        super().__init__(message)
        self.skipped = tuple(skipped)


_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$")


def valid_tournament_name(name: str) -> bool:
    """A name that stays one folder inside the results folder: no '/', no '..'."""
    return bool(_NAME.match(name)) and ".." not in name


class TournamentName(Domain[str]):
    """A name that stays one folder inside the results folder (`valid_tournament_name`)."""

    __slots__ = ()

    def convert(self, text: str) -> str:
        return text

    def problem(self, value: object) -> str | None:
        if isinstance(value, str) and valid_tournament_name(value):
            return None
        return (
            f"{value!r} is not a tournament name: use 1-80 letters, digits, '-', '_' or '.', "
            "starting with a letter or digit (it becomes a folder inside --out)"
        )


DEFAULT_GAMES = 120
_LIMITS = ResourceLimits()


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """A tournament as asked for. Every field but the first and last three is an option,
    declared here once (`arena.tournament.options`): every command that takes it and the
    admin protocol are made from its declaration, and making a config checks it."""

    bots_dir: Path | None
    """Local bots to start; None when only remote bots play (on a league server)."""
    games: int = option(
        DEFAULT_GAMES,
        Count(1, MAX_GAMES),
        "at least this many games (default {default})",
        NIGHT,
        metavar="N",
    )
    table_size: int | None = option(
        None,
        Count(2, MAX_TABLE),
        "players per game (default: all bots, up to 6)",
        NIGHT,
        metavar="N",
    )
    """Players per game; None means every entrant, up to 6."""
    jobs: int = option_made_by(
        default_jobs,
        Count(1),
        "games at once (default: one per usable core, here {default})",
        {*NIGHT, Command.AB},
        metavar="N",
    )
    force_jobs: bool = option(
        False,
        Switch(),
        "allow more --jobs than the machine has cores (expect timeouts from the load)",
        {*NIGHT, Command.AB},
    )
    """Play `jobs` games at once even on fewer cores (`check_cores`)."""
    move_time: float = option(
        1.0,
        Seconds(),
        "seconds per decision (default {default})",
        {*NIGHT, Command.AB, Command.CHECK_BOT, Command.PLAY},
        metavar="S",
    )
    time_bank: float = option(
        0.0,
        Seconds(margin=True),
        "seconds per bot per game that pay for decisions over --move-time; a timeout only "
        "when both are spent (default 0: no bank)",
        NIGHT,
        metavar="S",
    )
    """Seconds each bot has per game to pay for decisions over `move_time` (see `TimeControl`)."""
    increment: float = option(
        0.0,
        Seconds(margin=True),
        "seconds added to a bot's bank after each decision answered in time (default 0)",
        NIGHT,
        metavar="S",
    )
    """Seconds added to a bot's bank after each decision it answered in time."""
    time_margin: float = option(
        DEFAULT_TIME_MARGIN,
        Seconds(margin=True),
        "seconds added to each decision's limit before it is a timeout, for scheduling "
        "jitter; bots are still told --move-time (default {default})",
        {*NIGHT, Command.AB},
        metavar="S",
    )
    """Seconds added to each decision's limit for scheduling jitter (bots are told `move_time`).

    25 ms: on a loaded 2-core machine, instant bots at a 50 ms move time were
    late about once in a thousand decisions without it, never with it
    (`arena bench timing`)."""
    lag_allowance: float | None = option(
        None,
        Seconds(margin=True),
        "seconds of a remote bot's measured network round trip credited to its clock on each "
        "decision, at most (a bot that dialled in and answers the referee's pings; a bot that "
        "seems farther away gains no more; a bot the arena started is never credited) "
        f"(default: 0 for arena run, {LEAGUE_LAG_ALLOWANCE:g} on a league server)",
        {*NIGHT, Command.SERVE},
        metavar="S",
    )
    """Up to how much of a bot's measured round trip is its link's, not its thinking, per
    decision (`deadline.network_credit`); None: the venue's default (`lag_allowance_on`)."""
    timeouts: bool = option(
        True,
        Switch(),
        "debug mode, to step through a bot in a debugger: no decision is ever a timeout "
        "(bots are still told the usual times)",
        {*NIGHT, Command.CHECK_BOT},
        flag="--no-timeout",
    )
    """False in debug mode (`--no-timeout`): no decision has a deadline."""
    seed: bytes | None = option(
        None,
        Seed(),
        "hex seed for the dice (default: a fresh secret one)",
        {*NIGHT, Command.AB},
        metavar="HEX",
    )
    name: str | None = option(
        None,
        TournamentName(),
        "tournament name (default: time and seed commitment)",
        {*NIGHT, Command.AB},
    )
    deals: Deals = option(
        Deals.OWN,
        Choice(Deals),
        "own: every game its own dice (default); disjoint: one deal at tables that share "
        "no bot, for less luck (needs two tables' worth of bots). No bot ever meets a deal twice",
        NIGHT,
    )
    gauntlet: str | None = option(
        None,
        Text(),
        "seat BOT at every table, the others filling the rest as evenly as in a round "
        "robin: BOT against the field",
        NIGHT,
        metavar="BOT",
    )
    """A bot to seat at every table (`arena run --gauntlet`)."""
    until_confident: float | None = option(
        None,
        Level(),
        f"play whole rotation groups until every adjacent pair on the leaderboard is "
        f"separated at LEVEL (default {LEVEL:g}) or the --games budget is spent",
        NIGHT,
        metavar="LEVEL",
        bare=LEVEL,
    )
    """Stop starting rotation groups once every adjacent pair on the leaderboard is separated
    at this level (the batch fit's bootstrap); None plays the whole schedule."""
    out: Path = option(
        Path("results"),
        Folder(),
        "where results go (default results/)",
        {Command.RUN},
        metavar="DIR",
    )
    league: Path | str | None = option(
        None,
        Store(),
        "league store: an SQLite file (default OUT/league.sqlite) or a postgresql:// URL",
        {Command.RUN},
        metavar="STORE",
    )
    """The league store: an SQLite file or a postgresql:// URL; None means `out/league.sqlite`."""
    store_patience: float = option(
        DEFAULT_STORE_PATIENCE_S,
        Seconds(margin=True),
        "how long to wait for a league store that cannot be reached (a database "
        "restarting, a lock another process holds) before stopping; play goes on meanwhile, "
        "every game recorded in the folder; 0 stops at the first failure (default {default})",
        {*NIGHT, Command.SERVE},
        metavar="S",
    )
    """Seconds to wait for a league store that cannot be reached (a database restarting, a
    lock another process holds) before the run stops; play goes on meanwhile."""
    connect_timeout: float = option(
        20.0,
        Seconds(),
        "seconds for bots to connect (default {default})",
        {*NIGHT, Command.AB, Command.CHECK_BOT, Command.PLAY},
        metavar="S",
    )
    memory_mb: int = option(
        _LIMITS.memory_mb,
        Count(MIN_MEMORY_MB),
        "address space per bot, in MiB (and, in a cgroup, memory in use; its manifest may ask "
        "for less) (default {default})",
        NIGHT,
        metavar="MB",
    )
    cpu_s: int = option(
        _LIMITS.cpu_s,
        Count(1),
        "CPU seconds per bot (default {default}: 6 hours)",
        NIGHT,
        metavar="S",
    )
    build_timeout: float = option(
        _LIMITS.build_timeout,
        Seconds(),
        "most seconds a bot's build may take (its manifest may ask for less; default {default})",
        NIGHT,
        metavar="S",
    )
    scratch_mb: int = option(
        _LIMITS.scratch_mb,
        Count(1),
        "a sandboxed bot's writable /tmp, in MiB; unsandboxed, the largest file it may write "
        "(default {default})",
        NIGHT,
        metavar="MB",
    )
    recover: int = option(
        0,
        Count(0),
        "start a local bot whose process died again, at most N times in the tournament "
        f"(default N {DEFAULT_RESTARTS}); the crash is still a fault in its game. "
        "Without it a crash is final",
        NIGHT,
        metavar="N",
        bare=DEFAULT_RESTARTS,
    )
    """Restarts allowed per local bot whose process dies (`--recover`); 0: a crash is final."""
    sandbox: SandboxMode = option(
        SandboxMode.AUTO,
        Choice(SandboxMode),
        "isolate local bots with bubblewrap: auto (where possible, else say why not), "
        "require (refuse without it), off (default {default})",
        {*NIGHT, Command.AB, Command.CHECK_BOT, Command.PLAY},
    )
    build_network: BuildNetwork = option(
        BuildNetwork.ISOLATED,
        Choice(BuildNetwork),
        "the network a sandboxed bot's build gets: isolated (the internet through "
        "slirp4netns, never this machine's loopback or sockets; off where slirp4netns cannot "
        "run), off (none), host (this machine's own, loopback included) (default {default})",
        {*NIGHT, Command.AB, Command.CHECK_BOT, Command.PLAY, Command.SERVE},
    )
    """The network a sandboxed build gets (`arena.bots.isolation.buildnet`); on a league server, its
    submissions' builds (a night started there sets its own)."""
    rebuild: bool = option(
        False,
        Switch(),
        "build every local bot, even one unchanged since its last",
        {*NIGHT, Command.CHECK_BOT},
    )
    """Build every bot, even one unchanged since its last good build
    (`arena.bots.builds.buildstamp`)."""
    reconnect_grace: float = option(
        60.0,
        Seconds(),
        "seconds a disconnected bot's games wait before they are dropped (default {default})",
        {Command.SERVE},
        metavar="S",
    )
    """On a league server: how long to wait for a disconnected bot before its games are dropped."""
    ruleset: Ruleset = option(
        Ruleset(), Rules(), "the rules", {*NIGHT, Command.AB, Command.PLAY}, flag="--rules"
    )
    """Given by `--rules` (a preset), `--rule FIELD=VALUE` and a flag for each field."""
    ab: AbPlan | None = None
    """An A/B test's plan (`arena ab`): NEW and OLD by name and the test's hypotheses, kept
    in tournament.json; the schedule is then pairs, the rest of the entrants the field."""
    extra_bots: tuple[Path, ...] = ()
    """Bot entries outside `bots_dir` that play too (an A/B test's NEW and OLD)."""

    def __post_init__(self) -> None:
        for declared in OPTIONS:
            why = declared.problem(getattr(self, declared.name))
            if why is not None:
                raise OptionError(why)
        if self.gauntlet is not None and self.deals is Deals.DISJOINT:
            raise OptionError(
                "--gauntlet seats its bot at every table, so no tables share no bot: "
                "use --deals own with it"
            )

    @property
    def league_store(self) -> Path | str:
        return self.league if self.league is not None else self.out / "league.sqlite"

    @property
    def limits(self) -> ResourceLimits:
        """The caps on each local bot: the organiser's four, the rest the arena's own."""
        return dataclasses.replace(
            _LIMITS,
            memory_mb=self.memory_mb,
            cpu_s=self.cpu_s,
            build_timeout=self.build_timeout,
            scratch_mb=self.scratch_mb,
        )

    def plan(self, server: bool) -> RunPlan:
        """What a run of this config is set up to do, kept in its folder (a resume and `arena
        verify` read it there): the run a league server plays when `server`."""
        return RunPlan(
            league=recorded(self.league_store),
            ruleset=self.ruleset,
            games=self.games,
            jobs=self.jobs,
            time=self.time_control(server),
            bots_dir=str(self.bots_dir.resolve()) if self.bots_dir is not None else None,
            server=server,
            table_size=self.table_size,
            deals=self.deals,
            gauntlet=self.gauntlet,
            ab=self.ab,
            extra_bots=tuple(str(p.resolve()) for p in self.extra_bots),
            until_confident=self.until_confident,
        )

    def time_control(self, server: bool = False) -> TimeControl:
        """The time control asked for, with its margin and the lag allowance of the venue (a
        league server's when `server`); `TimeControlError` when it cannot be played."""
        return TimeControl(
            self.move_time,
            self.time_bank,
            self.increment,
            self.timeouts,
            margin=self.time_margin,
            lag_allowance=self.lag_allowance_on(server),
        )

    def lag_allowance_on(self, server: bool) -> float:
        """The lag allowance asked for, or the venue's: a league server's remote bots are on
        a network, `arena run`'s local bots are not (their socket has none to credit)."""
        if self.lag_allowance is not None:
            return self.lag_allowance
        return LEAGUE_LAG_ALLOWANCE if server else 0.0

    def check_cores(self) -> None:
        """Refuse more games at once than this machine's cores, unless forced: asked where
        the games are played (a league server's, not its admin client's)."""
        check_jobs(self.jobs, self.force_jobs)


OPTIONS = options_of(TournamentConfig)
"""Every tournament option, in the order of their flags in `--help`."""


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
