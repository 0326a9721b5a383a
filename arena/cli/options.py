"""Command-line options shared by `arena run` and `arena admin start`."""

from __future__ import annotations

import argparse

from arena.bots.buildnet import BuildNetwork
from arena.bots.capacity import default_jobs
from arena.bots.sandbox import SandboxMode
from arena.cli import validate
from arena.referee.deadline import DEFAULT_TIME_MARGIN
from arena.tournament.play.recovery import DEFAULT_RESTARTS
from arena.tournament.results.league_writes import DEFAULT_STORE_PATIENCE_S
from arena.tournament.schedule.round_robin import Deals
from engine import PRESETS, PalificoFaceChange, Ruleset, RulesetError, Side, preset
from engine.ruleset import LEGACY_FACE_CHANGE

DEFAULT_GAMES = 120


def add_sandbox_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--sandbox",
        type=SandboxMode,
        choices=list(SandboxMode),
        default=SandboxMode.AUTO,
        help="isolate local bots with bubblewrap: auto (where possible, else say why not), "
        "require (refuse without it), off (default auto)",
    )


def add_build_network_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--build-network",
        type=BuildNetwork,
        choices=list(BuildNetwork),
        default=BuildNetwork.ISOLATED,
        help="the network a sandboxed bot's build gets: isolated (the internet through "
        "slirp4netns, never this machine's loopback or sockets; off where slirp4netns cannot "
        "run), off (none), host (this machine's own, loopback included) (default isolated)",
    )


def add_store_patience_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--store-patience",
        type=validate.margin,
        default=DEFAULT_STORE_PATIENCE_S,
        metavar="SECONDS",
        help="how long to wait for a league store that cannot be reached (a database "
        "restarting, a lock another process holds) before stopping; play goes on meanwhile, "
        "every game recorded in the folder (default %(default)g)",
    )


def add_gauntlet_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--gauntlet",
        metavar="BOT",
        help="seat BOT at every table, the others filling the rest as evenly as in a round "
        "robin: BOT against the field",
    )


def add_recover_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--recover",
        type=validate.int_at_least(1),
        nargs="?",
        const=DEFAULT_RESTARTS,
        default=0,
        metavar="N",
        help="start a local bot whose process died again, at most N times in the tournament "
        f"(default N {DEFAULT_RESTARTS}); the crash is still a fault in its game. "
        "Without it a crash is final",
    )


def add_rebuild_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rebuild",
        action="store_true",
        help="build every local bot, even one unchanged since its last",
    )


def add_fairness_flags(parser: argparse.ArgumentParser) -> None:
    """--force-jobs and --time-margin: how far the organiser may load the machine, and its slack."""
    parser.add_argument(
        "--force-jobs",
        action="store_true",
        help="allow more --jobs than the machine has cores (expect timeouts from the load)",
    )
    parser.add_argument(
        "--time-margin",
        type=validate.margin,
        default=DEFAULT_TIME_MARGIN,
        metavar="S",
        help="seconds added to each decision's limit before it is a timeout, for scheduling "
        "jitter; bots are still told --move-time (default %(default)g)",
    )


def add_no_timeout_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-timeout",
        action="store_true",
        help="debug mode, to step through a bot in a debugger: no decision is ever a timeout "
        "(bots are still told the usual times)",
    )


TIMEOUTS_OFF = (
    "TIMEOUTS ARE OFF (--no-timeout): no decision has a deadline, a bot may think as long as "
    "it likes; debug mode, not for a real tournament"
)


def ruleset(args: argparse.Namespace) -> Ruleset:
    """The preset, changed by the typed flags and by each `--rule FIELD=VALUE`.

    A field set two ways to two values is refused rather than settled by order.
    """
    changes: dict[str, object] = {
        field: value
        for field, value in (
            ("calza", args.calza),
            ("dice_per_player", args.dice),
            ("opener", args.opener),
            ("palifico", args.palifico),
            ("palifico_once", args.palifico_once),
            (LEGACY_FACE_CHANGE, args.one_die_may_change_face),
            ("palifico_face_change", args.palifico_face_change),
            ("palifico_min_players", args.palifico_min_players),
            ("open_on_pacos", args.open_on_pacos),
            ("opener_after_elimination", args.opener_after_elimination),
            ("calza_max_dice", args.calza_max_dice),
            ("lower_face_with_higher_count", args.lower_face),
            ("fault_penalty", args.fault_penalty),
        )
        if value is not None
    }
    for field, value in args.rule:
        if changes.get(field, value) != value:
            raise RulesetError(
                f"--rule {field}={value} disagrees with {field} = {changes[field]} "
                f"given by another flag"
            )
        changes[field] = value
    return Ruleset.from_mapping(changes, base=preset(args.rules))


def add_rules_flags(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("rules (docs/rules.md); flags override the preset")
    rules.add_argument(
        "--rules",
        default="rulebook",
        choices=sorted(PRESETS),
        help="preset (default rulebook; each is told in docs/rules.md)",
    )
    rules.add_argument(
        "--rule",
        action="append",
        default=[],
        type=validate.rule_field,
        metavar="FIELD=VALUE",
        help="any ruleset field by its name in docs/rules.md (repeatable), "
        "e.g. open_on_pacos=true, calza_max_dice=null",
    )
    rules.add_argument("--calza", choices=["off", "turn", "any"])
    rules.add_argument(
        "--dice",
        type=validate.int_between(1, validate.MAX_DICE),
        metavar="N",
        help="dice per player",
    )
    rules.add_argument("--opener", choices=["rolloff", "seat0"])
    rules.add_argument("--palifico", action=argparse.BooleanOptionalAction, default=None)
    rules.add_argument("--palifico-once", action=argparse.BooleanOptionalAction, default=None)
    rules.add_argument(
        "--palifico-face-change",
        choices=[c.value for c in PalificoFaceChange],
        help="who on one die may change face in a palifico round",
    )
    rules.add_argument(
        "--one-die-may-change-face",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the old form of --palifico-face-change all (or none)",
    )
    rules.add_argument(
        "--palifico-min-players",
        type=validate.int_between(2, validate.MAX_TABLE),
        metavar="N",
        help="palifico rounds only while at least N players have dice",
    )
    rules.add_argument(
        "--open-on-pacos",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="an ordinary round may open on pacos",
    )
    rules.add_argument(
        "--opener-after-elimination",
        choices=[s.value for s in Side],
        help="who opens after a player goes out: their left or right neighbour",
    )
    rules.add_argument(
        "--calza-max-dice",
        type=validate.int_between(1, validate.MAX_DICE),
        metavar="N",
        help="a calza brings a player back up to N dice at most (default: --dice)",
    )
    rules.add_argument(
        "--lower-face",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a higher count may name a lower face",
    )
    rules.add_argument("--fault-penalty", choices=["eliminate", "lose_die"])


def add_schedule_flags(parser: argparse.ArgumentParser) -> None:
    # --games has no default here, so that a resume can tell a --games given from none.
    parser.add_argument(
        "--games",
        type=validate.int_between(1, validate.MAX_GAMES),
        help=f"at least this many games (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--table-size",
        type=validate.int_between(2, validate.MAX_TABLE),
        help="players per game (default: all bots, up to 6)",
    )
    parser.add_argument(
        "--jobs",
        type=validate.int_at_least(1),
        default=None,
        help=f"games at once (default: one per usable core, here {default_jobs()})",
    )
    parser.add_argument(
        "--move-time", type=validate.seconds, default=1.0, help="seconds per decision (default 1)"
    )
    parser.add_argument(
        "--time-bank",
        type=validate.margin,
        default=0.0,
        metavar="SECONDS",
        help="seconds per bot per game that pay for decisions over --move-time; a timeout only "
        "when both are spent (default 0: no bank)",
    )
    parser.add_argument(
        "--increment",
        type=validate.margin,
        default=0.0,
        metavar="SECONDS",
        help="seconds added to a bot's bank after each decision answered in time (default 0)",
    )
    parser.add_argument(
        "--seed", type=validate.seed, help="hex seed for the dice (default: a fresh secret one)"
    )
    parser.add_argument(
        "--name",
        type=validate.tournament_name,
        help="tournament name (default: time and seed commitment)",
    )
    parser.add_argument(
        "--deals",
        choices=[d.value for d in Deals],
        default=Deals.OWN.value,
        help="own: every game its own dice (default); disjoint: one deal at tables that share "
        "no bot, for less luck (needs two tables' worth of bots). No bot ever meets a deal twice",
    )
