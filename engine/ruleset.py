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


class PalificoFaceChange(enum.Enum):
    """Who, holding one die, may name another face in a palifico round."""

    NONE = "none"
    OTHERS = "others"
    """Every one-die bidder but the palifico player (who opened the round)."""
    ALL = "all"


class Side(enum.Enum):
    """A direction round the table from a seat; play itself always passes left."""

    LEFT = "left"
    RIGHT = "right"


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
    palifico_face_change: PalificoFaceChange = PalificoFaceChange.NONE
    palifico_min_players: int = 2
    open_on_pacos: bool = False
    opener_after_elimination: Side = Side.LEFT
    calza_max_dice: int | None = None
    fault_penalty: FaultPenalty = FaultPenalty.ELIMINATE

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None and field.name in _OPTIONAL:
                continue
            expected = _FIELD_TYPES[field.name]
            # bool is an int subclass; a count of True dice is a mistake.
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise RulesetError(
                    f"ruleset field {field.name!r} must be {_kind(field.name)}, got {value!r}"
                )
        if self.dice_per_player < 1:
            raise RulesetError(f"dice_per_player must be at least 1, got {self.dice_per_player}")
        if self.palifico_min_players < 2:
            raise RulesetError(
                f"palifico_min_players must be at least 2 (a game has two players), "
                f"got {self.palifico_min_players}"
            )
        if self.calza_max_dice is not None and self.calza_max_dice < 1:
            raise RulesetError(
                f"calza_max_dice must be at least 1, or null for dice_per_player, "
                f"got {self.calza_max_dice}"
            )

    @property
    def calza_cap(self) -> int:
        """The most dice a calza can bring a player back up to."""
        return self.dice_per_player if self.calza_max_dice is None else self.calza_max_dice

    @property
    def most_dice(self) -> int:
        """The most dice anyone can hold: the start, or more when a calza may bring more."""
        return max(self.dice_per_player, self.calza_cap)

    @property
    def palifico_one_die_may_change_face(self) -> bool:
        """The field this one replaced, as bots written before `palifico_face_change` read it."""
        return self.palifico_face_change is PalificoFaceChange.ALL

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], base: Ruleset | None = None) -> Ruleset:
        """Build a ruleset from plain values (JSON, TOML, flags) over `base`.

        The old `palifico_one_die_may_change_face` is still read (true is
        `palifico_face_change = all`, false is `none`), so files written before
        keep their meaning; given beside `palifico_face_change`, the two must agree.
        """
        base = base if base is not None else cls()
        changes: dict[str, Any] = {}
        for name, raw in data.items():
            if name == LEGACY_FACE_CHANGE:
                continue
            if name not in _FIELD_TYPES:
                known = ", ".join(sorted(_FIELD_TYPES))
                raise RulesetError(f"unknown ruleset field {name!r} (known: {known})")
            changes[name] = _coerce(name, raw)
        if LEGACY_FACE_CHANGE in data:
            _read_legacy_face_change(data[LEGACY_FACE_CHANGE], changes)
        return dataclasses.replace(base, **changes)

    @classmethod
    def from_text(cls, name: str, text: str, base: Ruleset | None = None) -> Ruleset:
        """One field set from command-line text: `true`/`false`, whole numbers, `null`."""
        lowered = text.strip().lower()
        value: object = text.strip()
        if lowered in {"true", "false"}:
            value = lowered == "true"
        elif lowered.isdigit():
            value = int(lowered)
        elif lowered in {"null", "none", "unset"} and name.strip() in _OPTIONAL:
            value = None
        return cls.from_mapping({name.strip(): value}, base)

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
    "palifico_face_change": PalificoFaceChange,
    "palifico_min_players": int,
    "open_on_pacos": bool,
    "opener_after_elimination": Side,
    "calza_max_dice": int,
    "fault_penalty": FaultPenalty,
}
_OPTIONAL = frozenset({"calza_max_dice"})
"""Fields that may be null (None): the rule then follows another field."""

LEGACY_FACE_CHANGE = "palifico_one_die_may_change_face"
"""The bool `palifico_face_change` replaced; read, never written."""


def _kind(name: str) -> str:
    kind = _FIELD_TYPES[name].__name__
    return f"{kind} or null" if name in _OPTIONAL else kind


def _read_legacy_face_change(raw: Any, changes: dict[str, Any]) -> None:
    if not isinstance(raw, bool):
        raise RulesetError(f"{LEGACY_FACE_CHANGE} must be true or false, got {raw!r}")
    meant = PalificoFaceChange.ALL if raw else PalificoFaceChange.NONE
    given = changes.setdefault("palifico_face_change", meant)
    if given is not meant:
        raise RulesetError(
            f"{LEGACY_FACE_CHANGE} = {str(raw).lower()} means palifico_face_change = "
            f"{meant.value!r}, but palifico_face_change = {given.value!r} is given too; "
            f"give palifico_face_change alone"
        )


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
    "online": Ruleset(calza=CalzaRule.ANY),
    "pub": Ruleset(calza=CalzaRule.OFF, palifico=False, open_on_pacos=True),
    "no-heads-up-palifico": Ruleset(calza=CalzaRule.ANY, palifico_min_players=3, calza_max_dice=5),
}
"""Named rulesets, each with its source in docs/rules.md: the boxed rulebook's defaults,
its two common calza variations, and the rule sheets players meet most besides it."""


def preset(name: str) -> Ruleset:
    """The ruleset a name on the command line stands for; unknown names list the known."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesetError(
            f"unknown preset {name!r} (known: {', '.join(sorted(PRESETS))})"
        ) from None
