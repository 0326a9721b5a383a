"""The flags of every tournament option, made from its one declaration (`TournamentConfig`).

A flag's default on the parser is None, so that what the organiser gave is told
from what was left out: `given` is what was given, and the config (or a league
server's own defaults) fills in the rest. `--help` still says each default, from
the declaration.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from arena.cli import validate
from arena.tournament.config import OPTIONS, TournamentConfig
from arena.tournament.kinds import MAX_TABLE, Choice, Rules, Switch
from engine import PRESETS, PalificoFaceChange, Ruleset, RulesetError, Side, preset
from engine.ruleset import LEGACY_FACE_CHANGE

if TYPE_CHECKING:
    from arena.tournament.options import Command, Option


def add_options(parser: argparse.ArgumentParser, command: Command) -> None:
    """Every declared option `command` takes, as flags."""
    for declared in OPTIONS:
        if command in declared.commands:
            _add(parser, declared)


def _add(parser: argparse.ArgumentParser, declared: Option) -> None:
    domain = declared.domain
    if isinstance(domain, Rules):
        add_rules_flags(parser)
        return
    common: dict[str, Any] = {"dest": declared.name, "default": None, "help": declared.help()}
    if isinstance(domain, Switch):  # given alone, it sets the other value than the default
        parser.add_argument(
            declared.flag, action="store_const", const=not declared.default(), **common
        )
        return
    if declared.spec.bare is not None:
        common.update(nargs="?", const=declared.spec.bare)
    metavar = declared.spec.metavar
    if isinstance(domain, Choice):
        metavar = "{" + ",".join(domain.names()) + "}"
    parser.add_argument(
        declared.flag, type=validate.argument_type(domain.parse), metavar=metavar, **common
    )


def given(args: argparse.Namespace, command: Command) -> dict[str, Any]:
    """The options of `command` given on its command line, by name, as typed values."""
    chosen: dict[str, Any] = {}
    for declared in OPTIONS:
        if command not in declared.commands:
            continue
        if isinstance(declared.domain, Rules):
            if _rules_given(args):
                chosen[declared.name] = ruleset(args)
            continue
        value = getattr(args, declared.name)
        if value is not None:
            chosen[declared.name] = value
    return chosen


def config(args: argparse.Namespace, command: Command, **fixed: Any) -> TournamentConfig:
    """The config `command`'s flags ask for, over `fixed` (the bots folder, ...): checked as
    it is made, so a bad value or pair of values is refused in the same words everywhere."""
    return TournamentConfig(**{**fixed, **given(args, command)})


TIMEOUTS_OFF = (
    "TIMEOUTS ARE OFF (--no-timeout): no decision has a deadline, a bot may think as long as "
    "it likes; debug mode, not for a real tournament"
)


_RULE_FLAGS = (
    ("calza", "calza"),
    ("dice_per_player", "dice"),
    ("opener", "opener"),
    ("palifico", "palifico"),
    ("palifico_once", "palifico_once"),
    (LEGACY_FACE_CHANGE, "one_die_may_change_face"),
    ("palifico_face_change", "palifico_face_change"),
    ("palifico_min_players", "palifico_min_players"),
    ("open_on_pacos", "open_on_pacos"),
    ("opener_after_elimination", "opener_after_elimination"),
    ("calza_max_dice", "calza_max_dice"),
    ("lower_face_with_higher_count", "lower_face"),
    ("fault_penalty", "fault_penalty"),
)
"""Each ruleset field with a flag of its own, and the flag's dest."""


def _rules_given(args: argparse.Namespace) -> bool:
    return (
        args.rules is not None
        or bool(args.rule)
        or any(getattr(args, dest) is not None for _, dest in _RULE_FLAGS)
    )


def ruleset(args: argparse.Namespace) -> Ruleset:
    """The preset, changed by the typed flags and by each `--rule FIELD=VALUE`.

    A field set two ways to two values is refused rather than settled by order.
    """
    changes: dict[str, object] = {
        field: value for field, dest in _RULE_FLAGS if (value := getattr(args, dest)) is not None
    }
    for field, value in args.rule:
        if changes.get(field, value) != value:
            raise RulesetError(
                f"--rule {field}={value} disagrees with {field} = {changes[field]} "
                f"given by another flag"
            )
        changes[field] = value
    return Ruleset.from_mapping(changes, base=preset(args.rules or "rulebook"))


def add_rules_flags(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("rules (docs/rules.md); flags override the preset")
    rules.add_argument(
        "--rules",
        default=None,
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
    rules.add_argument(
        "--calza",
        choices=["off", "turn", "any"],
        help="who may call calza: nobody, the player whose turn it is, or anyone "
        "(default: the preset's; the rulebook's is turn)",
    )
    rules.add_argument(
        "--dice",
        type=validate.int_between(1, validate.MAX_DICE),
        metavar="N",
        help="dice per player",
    )
    rules.add_argument(
        "--opener",
        choices=["rolloff", "seat0"],
        help="who opens the first round: a roll-off, or seat 0 "
        "(default: the preset's; the rulebook's is rolloff)",
    )
    rules.add_argument(
        "--palifico",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a player down to one die opens a palifico round "
        "(default: the preset's; on in the rulebook)",
    )
    rules.add_argument(
        "--palifico-once",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a player's palifico round comes once only (default: the preset's; on in the "
        "rulebook)",
    )
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
        type=validate.int_between(2, MAX_TABLE),
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
    rules.add_argument(
        "--fault-penalty",
        choices=["eliminate", "lose_die"],
        help="what a bot's fault costs it: the game, or a die "
        "(default: the preset's; eliminate in the rulebook)",
    )
