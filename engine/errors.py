"""Every error the engine raises, in one place.

The hierarchy; "(ValueError)" marks errors that are also `ValueError`s, since
the value handed in is what was wrong:

* PerudoError - the root: never raised itself, caught to catch them all.
    + RulesetError (ValueError) - a ruleset field is unknown or out of its domain.
    + SeedError (ValueError) - a dice seed is too short or not hexadecimal.
    + SetupError (ValueError) - a table no game can have (seats, dice, opener).
    + DealError (ValueError) - dice that do not fit the table or the view they fill in.
    + MalformedActionError (ValueError) - input that is not an action at all.
    + IllegalActionError - an action the rules refuse here; `.rule` says which rule.
    + NotInGameError - a fault charged to a seat that is not playing.

A caller that only needs to know "was this action refused" catches
`IllegalActionError`; one that parses text or wire input also catches
`MalformedActionError`; a command line that wants one clear line for any bad
input catches `PerudoError`.
"""

from __future__ import annotations

import enum


class PerudoError(Exception):
    """The root of every error the engine raises; the engine raises only its subclasses."""


class RulesetError(PerudoError, ValueError):
    """A ruleset field is unknown or has a value outside its domain."""


class SeedError(PerudoError, ValueError):
    """A dice seed is too short to keep deals unpredictable, or is not hexadecimal."""


class SetupError(PerudoError, ValueError):
    """A table that no game can have: fewer than two seats with dice, a bad opener..."""


class MalformedActionError(PerudoError, ValueError):
    """Input that does not describe an action (for example `bid two 3`)."""


class DealError(PerudoError, ValueError):
    """Dice handed to a round do not fit the table, or the view they fill in."""


class NotInGameError(PerudoError):
    """A fault charged to a seat that cannot commit one: it is out, or the game is."""


class Rule(enum.Enum):
    """The rule an illegal action broke; its value is a stable machine name."""

    GAME_OVER = "game-over"
    NO_ROUND = "no-round-in-progress"
    NOT_IN_GAME = "not-in-game"
    NOT_YOUR_TURN = "not-your-turn"
    FACE_RANGE = "face-out-of-range"
    COUNT_RANGE = "count-out-of-range"
    OPENING_ON_PACOS = "opening-on-pacos"
    BID_TOO_LOW = "bid-too-low"
    FACE_LOWER = "lower-face-with-higher-count"
    PALIFICO_FACE_FIXED = "palifico-face-fixed"
    NO_STANDING_BID = "no-standing-bid"
    CALZA_OFF = "calza-off"
    CALZA_OUT_OF_TURN = "calza-out-of-turn"
    CALZA_OWN_BID = "calza-own-bid"


class IllegalActionError(PerudoError):
    """A well-formed action that the rules do not allow in this state."""

    def __init__(self, rule: Rule, detail: str) -> None:
        super().__init__(f"{detail} [{rule.value}]")
        self.rule = rule
        self.detail = detail
