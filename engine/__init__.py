"""The rules of Perudo as a pure library: no I/O, no clock, no threads.

The public face of the engine; the modules behind it are private detail.
Errors are documented in `engine.errors`.

For bots that search or learn: `legal_actions` is a collection (`in`, `len`,
indexing, iteration), `determinize` rebuilds the full state behind a view
given guessed hands, `sample_hands` guesses them uniformly, and `RandomDice`
deals fast reproducible dice for playouts.
"""

from engine.actions import CALZA, DUDO, FACES, PACO, Action, Bid, Calza, Dudo, parse_action
from engine.bidding import count_for
from engine.determinize import determinize, sample_hands
from engine.dice import (
    DiceSource,
    HmacDice,
    RandomDice,
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
    NotInGameError,
    PerudoError,
    Rule,
    RulesetError,
    SeedError,
    SetupError,
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
    new_game,
    refusal,
)
from engine.legal import LegalActions, legal_actions
from engine.ruleset import (
    PRESETS,
    CalzaRule,
    FaultPenalty,
    Opener,
    PalificoFaceChange,
    Ruleset,
    Side,
    preset,
)
from engine.state import (
    GameState,
    Phase,
    PlacedBid,
    RoundEnd,
    RoundOutcome,
    left_of,
    right_of,
)
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
    "LegalActions",
    "MalformedActionError",
    "NotInGameError",
    "Observation",
    "Opener",
    "PalificoFaceChange",
    "PerudoError",
    "Phase",
    "PlacedBid",
    "RandomDice",
    "RoundEnd",
    "RoundOutcome",
    "Rule",
    "Ruleset",
    "RulesetError",
    "SeedError",
    "SetupError",
    "Side",
    "apply",
    "bid_floors",
    "calza_offers",
    "can_calza",
    "can_dudo",
    "commitment",
    "count_for",
    "deal",
    "determinize",
    "fault",
    "is_legal",
    "left_of",
    "legal_actions",
    "new_game",
    "new_seed",
    "observe",
    "parse_action",
    "preset",
    "refusal",
    "right_of",
    "roll_hands",
    "rolloff",
    "sample_hands",
    "seed_from_hex",
]
