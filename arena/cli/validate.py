"""Argument types for the command line: each bad value is refused at parse time.

Refusing a value while parsing, before anything is created, is what keeps a
typo from leaving a half-made tournament folder behind, and it lets the
message say what the value is ("nan is not a number of seconds") instead of
what it later caused ("fewer than two bots can play"). Each function is an
argparse `type=`: it returns the value or raises `ArgumentTypeError`, which
the parser turns into one line.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from arena.store import is_url
from arena.tournament.config import valid_tournament_name
from engine import PerudoError, Ruleset, RulesetError, seed_from_hex
from engine.ruleset import LEGACY_FACE_CHANGE

MAX_GAMES = 100_000
"""A night at 50 games a second is over in half an hour; more is a typo."""
MAX_SECONDS = 3600.0
MAX_DICE = 20
MAX_TABLE = 100
MIN_MEMORY_MB = 256
"""As for `memory_mb` in bot.toml: below this no interpreter starts."""
SQLITE_HEADER = b"SQLite format 3\x00"


def int_between(low: int, high: int | None) -> Callable[[str], int]:
    """A whole number from `low` to `high` (no upper bound when None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low:,}, not {value:,}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low:,}..{high:,}, not {value:,}")
        return value

    return parse


def int_at_least(low: int) -> Callable[[str], int]:
    return int_between(low, None)


def seconds(text: str) -> float:
    """A positive, finite number of seconds: nan, inf and 0 would time every bot out or never."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number of seconds")
    if not 0 < value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text} s is out of range: give more than 0 and at most {MAX_SECONDS:.0f} seconds"
        )
    return value


def margin(text: str) -> float:
    """Seconds of slack, 0 included: a finite number no larger than a decision's own limit."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is out of range: give 0 or more, at most {MAX_SECONDS:.0f} seconds"
        )
    return value


def level(text: str) -> float:
    """A confidence level strictly between 0 and 1, such as 0.95."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a level such as 0.95") from None
    if not 0.5 <= value < 1:
        raise argparse.ArgumentTypeError(
            f"{text} is out of range: give a level from 0.5 up to (not including) 1, e.g. 0.95"
        )
    return value


def seed(text: str) -> str:
    """A hex seed of enough bytes; an empty one is a mistake, not a request for a fresh seed."""
    if not text:
        raise argparse.ArgumentTypeError("an empty seed; leave --seed out for a fresh secret one")
    try:
        seed_from_hex(text, "--seed")
    except PerudoError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def tournament_name(text: str) -> str:
    """A name that stays one folder inside --out: no '/', no '..', no leading dot."""
    if not valid_tournament_name(text):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a tournament name: use 1-80 letters, digits, '-', '_' or '.', "
            "starting with a letter or digit (it becomes a folder inside --out)"
        )
    return text


def rule_field(text: str) -> tuple[str, object]:
    """`FIELD=VALUE` for one ruleset field, as the field's plain value (`calza=off` -> "off").

    The old `palifico_one_die_may_change_face` comes back as the field that replaced it.
    """
    name, equals, raw = text.partition("=")
    if not equals:
        raise argparse.ArgumentTypeError(f"{text!r} is not FIELD=VALUE (e.g. calza=off)")
    field = name.strip()
    try:
        plain = Ruleset.from_text(field, raw).to_mapping()
    except RulesetError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    field = "palifico_face_change" if field == LEGACY_FACE_CHANGE else field
    return field, plain[field]


def folder(text: str) -> Path:
    path = Path(text)
    if not path.is_dir():
        raise argparse.ArgumentTypeError(f"{path} is not a folder")
    return path


def out_folder(text: str) -> Path:
    """A folder to write into: it may not exist yet, but it may not be a file."""
    path = Path(text)
    for part in (path, *path.parents):
        if part.exists() and not part.is_dir():
            raise argparse.ArgumentTypeError(f"{part} is a file, not a folder for results")
    return path


def league_named(text: str) -> Path | str:
    """A league store named, unchecked: a postgresql:// URL, or a path (a damaged file too,
    for `arena league rebuild`)."""
    return text if is_url(text) else Path(text)


def league_store(text: str) -> Path | str:
    """A league store: a postgresql:// URL, or a file absent (it will be made) or SQLite's."""
    if is_url(text):
        return text  # what it names is known only once the server answers
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(
            f"{path} is a folder; give the league store's file, e.g. {path / 'league.sqlite'}"
        )
    for part in path.parents:
        if part.exists() and not part.is_dir():
            raise argparse.ArgumentTypeError(f"{part} is a file, so {path} cannot be made")
    if path.is_file() and path.stat().st_size > 0:
        try:
            with path.open("rb") as data:
                header = data.read(len(SQLITE_HEADER))
        except OSError as error:
            raise argparse.ArgumentTypeError(f"{path} cannot be read: {error}") from None
        if header != SQLITE_HEADER:
            raise argparse.ArgumentTypeError(f"{path} is not a league store (not an SQLite file)")
    return path


class OneLineParser(argparse.ArgumentParser):
    """Says what was wrong in one line, not a usage block and an error beneath it."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")
