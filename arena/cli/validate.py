"""Argument types for the command line: each bad value is refused at parse time.

Refusing a value while parsing, before anything is created, is what keeps a
typo from leaving a half-made tournament folder behind, and it lets the
message say what the value is ("nan is not a number of seconds") instead of
what it later caused ("fewer than two bots can play"). Each function is an
argparse `type=`: it returns the value or raises `ArgumentTypeError`, which
the parser turns into one line. Where a tournament option's kind of value
(`arena.tournament.options`) fits, the function is that kind's own parse, so a
flag and a config made in code are checked by the same words.
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from arena.store import is_url
from arena.tournament.kinds import MAX_TABLE, Count, Folder, Level, OptionError, Seconds, Store
from engine import Ruleset, RulesetError
from engine.ruleset import LEGACY_FACE_CHANGE

if TYPE_CHECKING:
    from collections.abc import Callable

MAX_DICE = 20


def argument_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse `type=` from a domain's parse: its `OptionError` becomes the parser's
    one-line error naming the flag."""

    def typed(text: str) -> Any:
        try:
            return parse(text)
        except OptionError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return typed


def int_between(low: int, high: int | None) -> Callable[[str], int]:
    """A whole number from `low` to `high` (no upper bound when None)."""
    return argument_type(Count(low, high).parse)


def int_at_least(low: int) -> Callable[[str], int]:
    return int_between(low, None)


def table_sizes(text: str) -> tuple[int, ...]:
    """Table sizes, comma-separated (`3`, or `2,3,4` for a ladder that draws each table's):
    distinct, each from 2 to the largest table, smallest first."""
    size = Count(2, MAX_TABLE)
    try:
        sizes = [size.parse(part.strip()) for part in text.split(",")]
    except OptionError as error:
        raise argparse.ArgumentTypeError(
            f"{error} (sizes are comma-separated: 3 or 2,3,4)"
        ) from None
    if len(set(sizes)) != len(sizes):
        raise argparse.ArgumentTypeError(f"each table size once, not {text!r}")
    return tuple(sorted(sizes))


seconds: Callable[[str], float] = argument_type(Seconds().parse)
"""A positive, finite number of seconds: nan, inf and 0 would time every bot out or never."""
margin: Callable[[str], float] = argument_type(Seconds(margin=True).parse)
"""Seconds of slack, 0 included: a finite number no larger than a decision's own limit."""
level: Callable[[str], float] = argument_type(Level().parse)
"""A confidence level from 0.5 up to (not including) 1, such as 0.95."""
out_folder: Callable[[str], Path] = argument_type(Folder().parse)
"""A folder to write into: it may not exist yet, but it may not be a file."""
league_store: Callable[[str], Path | str] = argument_type(Store().parse)
"""A league store: a postgresql:// URL, or a file absent (it will be made) or SQLite's."""


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


def moment(text: str) -> float:
    """A date or a date and time in ISO form (local time unless it says its zone), as
    seconds since the epoch."""
    try:
        return datetime.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a date (2026-12-01) or a date and time (2026-12-01T18:00)"
        ) from None


def league_named(text: str) -> Path | str:
    """A league store named, unchecked: a postgresql:// URL, or a path (a damaged file too,
    for `arena league rebuild`)."""
    return text if is_url(text) else Path(text)


class DefaultsShown(argparse.HelpFormatter):
    """Every option's help ends with its default, where it has one worth saying and its help
    does not say it already: `--help` is where a person looks for it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help
        default = action.default
        said = text is None or "default" in text or "%(default)" in text
        if said or default in (None, False, [], argparse.SUPPRESS) or not action.option_strings:
            return text
        return f"{text} (default: %(default)s)"


class OneLineParser(argparse.ArgumentParser):
    """Says what was wrong in one line, not a usage block and an error beneath it; each of its
    commands' options with its default (`DefaultsShown`)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")
