"""Every error the engine raises, in one place.

`PerudoError` is the root. A caller that only needs to know "was this action
refused" catches `IllegalActionError`; one that parses text or wire input also
catches `MalformedActionError`, which means the input was not an action at all.
"""

from __future__ import annotations

import enum


class PerudoError(Exception):
    """The root of every error the engine raises."""


class RulesetError(PerudoError, ValueError):
    """A ruleset field is unknown or has a value outside its domain."""


class MalformedActionError(PerudoError, ValueError):
    """Input that does not describe an action (for example `bid two 3`)."""


class DealError(PerudoError, ValueError):
    """Dice handed to a round do not fit the table (wrong number or face)."""


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
