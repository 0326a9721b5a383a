"""Command-line options shared by `arena run` and `arena admin start`."""

from __future__ import annotations

import argparse

from arena.capacity import default_jobs
from engine import PRESETS, Ruleset, preset


def ruleset(args: argparse.Namespace) -> Ruleset:
    changes = {
        field: value
        for field, value in (
            ("calza", args.calza),
            ("dice_per_player", args.dice),
            ("opener", args.opener),
            ("palifico", args.palifico),
            ("palifico_once", args.palifico_once),
            ("palifico_one_die_may_change_face", args.one_die_may_change_face),
            ("lower_face_with_higher_count", args.lower_face),
            ("fault_penalty", args.fault_penalty),
        )
        if value is not None
    }
    return Ruleset.from_mapping(changes, base=preset(args.rules))


def add_rules_flags(parser: argparse.ArgumentParser) -> None:
    rules = parser.add_argument_group("rules (RULES.md); flags override the preset")
    rules.add_argument(
        "--rules", default="rulebook", choices=sorted(PRESETS), help="preset (default rulebook)"
    )
    rules.add_argument("--calza", choices=["off", "turn", "any"])
    rules.add_argument("--dice", type=int, metavar="N", help="dice per player")
    rules.add_argument("--opener", choices=["rolloff", "seat0"])
    rules.add_argument("--palifico", action=argparse.BooleanOptionalAction, default=None)
    rules.add_argument("--palifico-once", action=argparse.BooleanOptionalAction, default=None)
    rules.add_argument(
        "--one-die-may-change-face", action=argparse.BooleanOptionalAction, default=None
    )
    rules.add_argument(
        "--lower-face",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a higher count may name a lower face",
    )
    rules.add_argument("--fault-penalty", choices=["eliminate", "lose_die"])


def add_schedule_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--games", type=int, default=120, help="at least this many games (default 120)"
    )
    parser.add_argument(
        "--table-size", type=int, help="players per game (default: all bots, up to 6)"
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        help=f"games at once (default: one per usable core, here {default_jobs()})",
    )
    parser.add_argument(
        "--move-time", type=float, default=1.0, help="seconds per decision (default 1)"
    )
    parser.add_argument("--seed", help="hex seed for the dice (default: a fresh secret one)")
    parser.add_argument("--name", help="tournament name (default: time and seed commitment)")
