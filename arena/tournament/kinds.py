"""The kinds of value a tournament option takes: a count, seconds, a choice, a seed ...

Each says how a flag's text becomes a value (`convert`), what makes a value
wrong (`problem`: the one check, for a flag's value, a request's field and a
config made in code alike) and its form on the admin protocol (`wire`).
"""

from __future__ import annotations

import enum
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from arena.errors import ArenaError
from arena.protocol.messages import referee as pb
from arena.protocol.wire import ruleset_from_proto, ruleset_to_proto
from arena.store import is_url
from engine import PerudoError, Ruleset, seed_from_hex

T = TypeVar("T")
E = TypeVar("E", bound=enum.Enum)

MAX_GAMES = 100_000
"""A night at 50 games a second is over in half an hour; more is a typo."""
MAX_SECONDS = 3600.0
MAX_TABLE = 100
MIN_MEMORY_MB = 256
"""As for `memory_mb` in bot.toml: below this no interpreter starts."""
SQLITE_HEADER = b"SQLite format 3\x00"


class OptionError(ArenaError, ValueError):
    """A tournament option with a value it cannot have, or two options that do not go
    together; the message names the flag."""


class Domain(ABC, Generic[T]):
    """A kind of value. `problem` is the one check, applied to a flag's text once
    converted, to a request's field and to a config made in code alike."""

    __slots__ = ()
    wire: ClassVar[str | None] = "string"
    """Its type in admin.proto's StartTournamentRequest; None: it never travels."""

    @abstractmethod
    def convert(self, text: str) -> T:
        """The value a flag's text stands for; `OptionError` when it stands for none."""

    @abstractmethod
    def problem(self, value: object) -> str | None:
        """Why `value` is not one of this kind, or None."""

    def parse(self, text: str) -> T:
        value = self.convert(text)
        why = self.problem(value)
        if why is not None:
            raise OptionError(why)
        return value

    def shown(self, value: T) -> str:
        return str(value)

    def to_wire(self, value: T) -> object:
        return value

    def from_wire(self, raw: Any) -> T:
        value: T = raw
        return value


@dataclass(frozen=True, slots=True)
class Count(Domain[int]):
    """A whole number from `low` to `high` (no upper bound when None)."""

    low: int
    high: int | None = None
    wire: ClassVar[str | None] = "uint32"

    def convert(self, text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise OptionError(f"{text!r} is not a whole number") from None

    def problem(self, value: object) -> str | None:
        if not isinstance(value, int) or isinstance(value, bool):
            return f"{value!r} is not a whole number"
        if self.high is None and value < self.low:
            return f"must be at least {self.low:,}, not {value:,}"
        if self.high is not None and not self.low <= value <= self.high:
            return f"must be {self.low:,}..{self.high:,}, not {value:,}"
        return None


@dataclass(frozen=True, slots=True)
class Seconds(Domain[float]):
    """A finite number of seconds up to an hour: above 0, or 0 too for a `margin`
    (slack, a bank, a patience). nan, inf and 0 would time every bot out, or never."""

    margin: bool = False
    wire: ClassVar[str | None] = "double"

    def convert(self, text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise OptionError(f"{text!r} is not a number of seconds") from None

    def problem(self, value: object) -> str | None:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return f"{value!r} is not a number of seconds"
        if not math.isfinite(value):
            return f"{value} is out of range: give a finite number of seconds"
        if self.margin and not 0 <= value <= MAX_SECONDS:
            return f"{value:g} s is out of range: give 0 or more, at most {MAX_SECONDS:.0f} seconds"
        if not self.margin and not 0 < value <= MAX_SECONDS:
            return (
                f"{value:g} s is out of range: give more than 0 and at most "
                f"{MAX_SECONDS:.0f} seconds"
            )
        return None

    def shown(self, value: float) -> str:
        return f"{value:g}"

    def from_wire(self, raw: Any) -> float:
        return float(raw)


@dataclass(frozen=True, slots=True)
class Level(Domain[float]):
    """A confidence level such as 0.95: from 0.5 up to, not including, 1."""

    wire: ClassVar[str | None] = "double"

    def convert(self, text: str) -> float:
        try:
            return float(text)
        except ValueError:
            raise OptionError(f"{text!r} is not a level such as 0.95") from None

    def problem(self, value: object) -> str | None:
        if not isinstance(value, int | float) or isinstance(value, bool):
            return f"{value!r} is not a level such as 0.95"
        if not 0.5 <= value < 1:
            return f"{value} is out of range: give a level from 0.5 up to (not including) 1"
        return None

    def shown(self, value: float) -> str:
        return f"{value:g}"


@dataclass(frozen=True, slots=True)
class Choice(Domain[E]):
    """One member of an enum, by its value (`auto`, `disjoint` ...)."""

    kind: type[E]

    def names(self) -> list[str]:
        return [str(member.value) for member in self.kind]

    def convert(self, text: str) -> E:
        try:
            return self.kind(text)
        except ValueError:
            raise OptionError(f"{text!r} is not one of {', '.join(self.names())}") from None

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, self.kind) else f"{value!r} is not a {self.kind.__name__}"

    def shown(self, value: E) -> str:
        return str(value.value)

    def to_wire(self, value: E) -> object:
        return value.value

    def from_wire(self, raw: Any) -> E:
        return self.convert(str(raw))


@dataclass(frozen=True, slots=True)
class Switch(Domain[bool]):
    """On or off; its flag, given alone, sets the other value than the default."""

    wire: ClassVar[str | None] = "bool"

    def convert(self, text: str) -> bool:
        raise OptionError(f"a switch takes no value, not {text!r}")

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, bool) else f"{value!r} is not true or false"


@dataclass(frozen=True, slots=True)
class Seed(Domain[bytes]):
    """The dice seed: hex on the command line, its bytes on the wire."""

    wire: ClassVar[str | None] = "bytes"

    def convert(self, text: str) -> bytes:
        if not text:
            raise OptionError("an empty seed; leave --seed out for a fresh secret one")
        try:
            return seed_from_hex(text, "--seed")
        except PerudoError as error:
            raise OptionError(str(error)) from None

    def problem(self, value: object) -> str | None:
        if not isinstance(value, bytes):
            return f"{value!r} is not a seed"
        try:
            seed_from_hex(value.hex())
        except PerudoError as error:
            return str(error)
        return None

    def shown(self, value: bytes) -> str:
        return value.hex()


@dataclass(frozen=True, slots=True)
class Text(Domain[str]):
    """A word that is not empty, such as a bot's name."""

    def convert(self, text: str) -> str:
        return text

    def problem(self, value: object) -> str | None:
        if not isinstance(value, str) or not value.strip():
            return f"{value!r} is not a name"
        return None


@dataclass(frozen=True, slots=True)
class Folder(Domain[Path]):
    """A folder to write into on this machine: it may not exist yet, but it may not be a file."""

    wire: ClassVar[str | None] = None

    def convert(self, text: str) -> Path:
        path = Path(text)
        for part in (path, *path.parents):
            if part.exists() and not part.is_dir():
                raise OptionError(f"{part} is a file, not a folder for results")
        return path

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, Path) else f"{value!r} is not a folder"


@dataclass(frozen=True, slots=True)
class Store(Domain[Path | str]):
    """A league store: a postgresql:// URL, or a file absent (it will be made) or SQLite's."""

    wire: ClassVar[str | None] = None

    def convert(self, text: str) -> Path | str:
        if is_url(text):
            return text  # what it names is known only once the server answers
        path = Path(text)
        if path.is_dir():
            raise OptionError(
                f"{path} is a folder; give the league store's file, e.g. {path / 'league.sqlite'}"
            )
        for part in path.parents:
            if part.exists() and not part.is_dir():
                raise OptionError(f"{part} is a file, so {path} cannot be made")
        if path.is_file() and path.stat().st_size > 0:
            try:
                with path.open("rb") as data:
                    header = data.read(len(SQLITE_HEADER))
            except OSError as error:
                raise OptionError(f"{path} cannot be read: {error}") from None
            if header != SQLITE_HEADER:
                raise OptionError(f"{path} is not a league store (not an SQLite file)")
        return path

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, Path | str) else f"{value!r} is not a league store"


@dataclass(frozen=True, slots=True)
class Rules(Domain[Ruleset]):
    """A ruleset: a preset changed by flags on the command line (`arena.cli.options`),
    every field on the wire."""

    wire: ClassVar[str | None] = "perudo.v1.Ruleset"

    def convert(self, text: str) -> Ruleset:
        raise OptionError("a ruleset is given by its own flags")

    def problem(self, value: object) -> str | None:
        return None if isinstance(value, Ruleset) else f"{value!r} is not a ruleset"

    def to_wire(self, value: Ruleset) -> object:
        return ruleset_to_proto(value)

    def from_wire(self, raw: Any) -> Ruleset:
        if not isinstance(raw, pb.Ruleset):
            raise OptionError(f"{raw!r} is not a ruleset")
        try:
            return ruleset_from_proto(raw)
        except KeyError as error:  # an enum's number this version does not know
            raise OptionError(f"a ruleset field has no value numbered {error}") from None
        except PerudoError as error:
            raise OptionError(str(error)) from None
