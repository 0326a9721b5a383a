"""The rules of Perudo as a pure library: no I/O, no clock, no threads.

The public face of the engine; the modules behind it are private detail.
Errors are documented in `engine.errors`.
"""

from engine.actions import CALZA, DUDO, FACES, PACO, Action, Bid, Calza, Dudo, parse_action
from engine.bidding import count_for
from engine.dice import (
    DiceSource,
    HmacDice,
    commitment,
    new_seed,
    roll_hands,
    rolloff,
    seed_from_hex,
)
from engine.errors import (
    DealError,
    IllegalActionError,
    MalformedActionError,
    PerudoError,
    Rule,
    RulesetError,
)
from engine.game import (
    apply,
    bid_floors,
    calza_offers,
    can_calza,
    can_dudo,
    deal,
    fault,
    is_legal,
    legal_actions,
    new_game,
    refusal,
)
from engine.ruleset import PRESETS, CalzaRule, FaultPenalty, Opener, Ruleset, preset
from engine.state import GameState, Phase, PlacedBid, RoundEnd, RoundOutcome
from engine.view import Observation, observe

__all__ = [
    "CALZA",
    "DUDO",
    "FACES",
    "PACO",
    "PRESETS",
    "Action",
    "Bid",
    "Calza",
    "CalzaRule",
    "DealError",
    "DiceSource",
    "Dudo",
    "FaultPenalty",
    "GameState",
    "HmacDice",
    "IllegalActionError",
    "MalformedActionError",
    "Observation",
    "Opener",
    "PerudoError",
    "Phase",
    "PlacedBid",
    "RoundEnd",
    "RoundOutcome",
    "Rule",
    "Ruleset",
    "RulesetError",
    "apply",
    "bid_floors",
    "calza_offers",
    "can_calza",
    "can_dudo",
    "commitment",
    "count_for",
    "deal",
    "fault",
    "is_legal",
    "legal_actions",
    "new_game",
    "new_seed",
    "observe",
    "parse_action",
    "preset",
    "refusal",
    "roll_hands",
    "rolloff",
    "seed_from_hex",
]
