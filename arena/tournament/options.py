"""A tournament option declared once: its kind of value, help, commands and default.

Each option is a field of `TournamentConfig` whose default is given by `option()`,
so the field's name, type and default and the option's help, kind of value
(`arena.tournament.kinds`) and commands are one declaration. From it
`arena.cli.options` makes the flags of every command that takes it,
`arena.league.start` carries it to a league server and back, and the config's
construction checks it: a value out of range, from a flag, a request or code,
is refused in one place and in the same words.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from arena.tournament.kinds import Domain

T = TypeVar("T")


class Command(enum.Enum):
    """The commands whose flags are made from the declarations."""

    RUN = "arena run"
    ADMIN_START = "arena admin start"
    AB = "arena ab"
    CHECK_BOT = "arena check-bot"
    PLAY = "arena play"
    SERVE = "arena serve"


NIGHT = frozenset({Command.RUN, Command.ADMIN_START})
"""A night's option, on this machine or on a league server."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What `option()` keeps in a config field's metadata."""

    domain: Domain[Any]
    help: str
    commands: frozenset[Command]
    flag: str | None
    metavar: str | None
    bare: object
    default: Callable[[], object]


_KEY = "arena.option"


def option(
    default: T,
    domain: Domain[Any],
    help: str,
    commands: Iterable[Command],
    *,
    flag: str | None = None,
    metavar: str | None = None,
    bare: object = None,
) -> T:
    """A config field's default, declaring it an option. `help` may say `{default}`;
    `flag` defaults to the field's name, dashed; `bare` is the value of the flag given
    without one (`--recover` alone: 3 restarts)."""
    spec = Spec(domain, help, frozenset(commands), flag, metavar, bare, lambda: default)
    declared: T = dataclasses.field(default=default, metadata={_KEY: spec})
    return declared


def option_made_by(
    make: Callable[[], T],
    domain: Domain[Any],
    help: str,
    commands: Iterable[Command],
    *,
    metavar: str | None = None,
) -> T:
    """As `option`, for a default found when a config is made (the machine's cores)."""
    spec = Spec(domain, help, frozenset(commands), None, metavar, None, make)
    declared: T = dataclasses.field(default_factory=make, metadata={_KEY: spec})
    return declared


@dataclass(frozen=True, slots=True)
class Option:
    """One declared option, named: what every command and the protocol are made from."""

    name: str
    """The config field's name, and its field's in StartTournamentRequest."""
    spec: Spec

    @property
    def domain(self) -> Domain[Any]:
        return self.spec.domain

    @property
    def flag(self) -> str:
        return self.spec.flag or "--" + self.name.replace("_", "-")

    @property
    def commands(self) -> frozenset[Command]:
        return self.spec.commands

    def default(self) -> object:
        return self.spec.default()

    def help(self) -> str:
        default = self.default()
        return self.spec.help.format(default="none" if default is None else self.shown(default))

    def shown(self, value: object) -> str:
        return self.domain.shown(value)

    def problem(self, value: object) -> str | None:
        """Why `value` cannot be this option's, in words that name its flag; None when it can."""
        if value is None and self.default() is None:
            return None  # not given
        why = self.domain.problem(value)
        return None if why is None else f"{self.flag}: {why}"


def options_of(cls: type[Any]) -> tuple[Option, ...]:
    """The options a dataclass declares, in its fields' order."""
    return tuple(
        Option(f.name, f.metadata[_KEY]) for f in dataclasses.fields(cls) if _KEY in f.metadata
    )
