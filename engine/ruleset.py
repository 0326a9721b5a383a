"""The ruleset: every point on which published Perudo rule sheets disagree.

Fields and defaults are those of docs/rules.md. A ruleset is a value: frozen,
hashable, and built from plain data with `Ruleset.from_mapping`, which refuses
unknown fields and bad values rather than guessing.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import RulesetError


class Opener(enum.Enum):
    """Who opens the first round."""

    ROLLOFF = "rolloff"
    SEAT0 = "seat0"


class CalzaRule(enum.Enum):
    """Who may call calza."""

    OFF = "off"
    TURN = "turn"
    ANY = "any"


class FaultPenalty(enum.Enum):
    """What a bot's fault costs it (an arena rule)."""

    ELIMINATE = "eliminate"
    LOSE_DIE = "lose_die"


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every ruleset field of docs/rules.md with its default."""

    dice_per_player: int = 5
    opener: Opener = Opener.ROLLOFF
    lower_face_with_higher_count: bool = True
    calza: CalzaRule = CalzaRule.TURN
    palifico: bool = True
    palifico_once: bool = True
    palifico_one_die_may_change_face: bool = False
    fault_penalty: FaultPenalty = FaultPenalty.ELIMINATE

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            expected = _FIELD_TYPES[field.name]
            # bool is an int subclass; a count of True dice is a mistake.
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise RulesetError(
                    f"ruleset field {field.name!r} must be {expected.__name__}, got {value!r}"
                )
        if self.dice_per_player < 1:
            raise RulesetError(f"dice_per_player must be at least 1, got {self.dice_per_player}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: Ruleset | None = None) -> Ruleset:
        """Build a ruleset from plain values (JSON, TOML, flags) over `base`."""
        base = base if base is not None else cls()
        changes: dict[str, Any] = {}
        for name, raw in data.items():
            if name not in _FIELD_TYPES:
                known = ", ".join(sorted(_FIELD_TYPES))
                raise RulesetError(f"unknown ruleset field {name!r} (known: {known})")
            changes[name] = _coerce(name, raw)
        return dataclasses.replace(base, **changes)

    def to_mapping(self) -> dict[str, Any]:
        """Plain values, the inverse of `from_mapping`."""
        return {
            f.name: (v.value if isinstance(v, enum.Enum) else v)
            for f in dataclasses.fields(self)
            for v in [getattr(self, f.name)]
        }

    def changes(self) -> dict[str, Any]:
        """Only the fields that differ from the defaults, as plain values."""
        default = Ruleset().to_mapping()
        return {k: v for k, v in self.to_mapping().items() if default[k] != v}


_FIELD_TYPES: dict[str, type] = {
    "dice_per_player": int,
    "opener": Opener,
    "lower_face_with_higher_count": bool,
    "calza": CalzaRule,
    "palifico": bool,
    "palifico_once": bool,
    "palifico_one_die_may_change_face": bool,
    "fault_penalty": FaultPenalty,
}


def _coerce(name: str, raw: Any) -> Any:
    expected = _FIELD_TYPES[name]
    if issubclass(expected, enum.Enum):
        if isinstance(raw, expected):
            return raw
        try:
            return expected(raw)
        except ValueError:
            allowed = ", ".join(repr(m.value) for m in expected)
            raise RulesetError(f"{name} must be one of {allowed}, got {raw!r}") from None
    return raw  # type checks happen in __post_init__


PRESETS: dict[str, Ruleset] = {
    "rulebook": Ruleset(),
    "calza-any": Ruleset(calza=CalzaRule.ANY),
    "no-calza": Ruleset(calza=CalzaRule.OFF),
}
"""Named rulesets: the boxed rulebook's defaults and its two common variations."""


def preset(name: str) -> Ruleset:
    """The ruleset a name on the command line stands for; unknown names list the known."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesetError(
            f"unknown preset {name!r} (known: {', '.join(sorted(PRESETS))})"
        ) from None
