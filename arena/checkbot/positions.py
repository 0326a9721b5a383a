"""The positions `arena check-bot` puts a bot in, and the opponent it plays against.

Each probe is an exact position built with the engine: the situations where
bots most often answer illegally (an opening, paco conversions both ways, a
palifico round, calza on and off and out of turn, the last die of the table),
and positions under house rules where the rulebook's natural answer is illegal,
so that a bot which plays the rulebook whatever ruleset it is told is caught.
The house opponent plays plain binomial odds in process, behind the same
message path as a bot, so whole games need no second program.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import engine
from arena.kit import odds
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from arena.referee.session.reply import Reply
from engine import Bid, CalzaRule, GameState, PalificoFaceChange, Ruleset, Side

OPPONENT = "house"
"""The name the house's seats play under, in probes and whole games alike."""


@dataclass(frozen=True, slots=True)
class Probe:
    """One position, the seat the bot plays in it, and what it must get right."""

    name: str
    state: GameState
    seat: int
    offer: bool = False
    expect: str = "a legal action"


def house_policy(obs: engine.Observation) -> wire.Answer:
    """The in-process opponent: plain binomial odds, always legal."""
    if not obs.my_turn:
        return wire.PASS
    standing = obs.standing
    if standing is not None and obs.can_dudo and odds.chance_true(obs, standing) < 0.45:
        return engine.DUDO
    bids = odds.legal_bids(obs, extra=1)
    if not bids:
        return engine.DUDO
    return max(bids, key=lambda b: (odds.chance_true(obs, b), b.count, b.face))


class HouseSeat:
    """A seat played in process by `house_policy`, behind the same message path as a bot."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        obs = wire.observation_from_proto(pb.RefereeMessage.FromString(request).request, ())
        return Reply(house_policy(obs), None, 0.0)

    async def send(self, message: pb.RefereeMessage) -> bool:
        return True

    async def crashed(self) -> str | None:
        return None


def _position(
    ruleset: Ruleset,
    hands: Sequence[Sequence[int]],
    opener: int,
    bids: Sequence[tuple[int, Bid]] = (),
    palifico: bool = False,
) -> GameState:
    state = engine.new_game(
        ruleset,
        len(hands),
        opener,
        dice=[len(h) for h in hands],
        palifico=palifico,
        palifico_used=[opener] if palifico else [],
    )
    state = engine.deal(state, hands)
    for seat, bid in bids:
        state = engine.apply(state, seat, bid)
    return state


HOUSE_RULES = Ruleset(
    lower_face_with_higher_count=False,
    palifico_face_change=PalificoFaceChange.OTHERS,
    palifico_min_players=3,
    open_on_pacos=True,
    opener_after_elimination=Side.RIGHT,
    calza_max_dice=6,
)
"""A ruleset with every variant field off its default: the probes and a whole game under it
check that a bot plays the rules it is told, not the ones it assumes."""


def probes() -> list[Probe]:
    return [*_rulebook_probes(), *_house_probes()]


def _house_probes() -> list[Probe]:
    return [
        Probe(
            "house rules: a higher count keeps the face or a higher one",
            _position(
                HOUSE_RULES,
                [[1, 5, 5, 6, 6], [2, 2, 2, 3, 6], [3, 4, 4, 5, 6]],
                0,
                [(0, Bid(4, 5))],
            ),
            1,
            expect="4 or more 6s, 5 or more 5s, pacos from 2, or dudo "
            "(lower_face_with_higher_count is off: no 2s, 3s or 4s)",
        ),
        Probe(
            "house rules: opening on pacos allowed",
            _position(HOUSE_RULES, [[1, 1, 3, 5, 6], [2, 4, 5, 6, 6], [1, 2, 3, 4, 5]], 0),
            0,
            expect="an opening bid on any face, pacos included (open_on_pacos)",
        ),
        Probe(
            "house rules: the palifico player keeps the face",
            _position(
                HOUSE_RULES,
                [[4], [2], [1, 3, 5, 5, 6]],
                0,
                [(0, Bid(1, 4)), (1, Bid(1, 6)), (2, Bid(2, 6))],
                palifico=True,
            ),
            0,
            expect="3 6s, or dudo (palifico_face_change = others: the palifico player "
            "may not change face)",
        ),
        Probe(
            "house rules: another one-die player may change face",
            _position(HOUSE_RULES, [[4], [2], [1, 3, 5, 5, 6]], 0, [(0, Bid(1, 4))], palifico=True),
            1,
            expect="a higher count on any face, 1 5 or 1 6, or dudo "
            "(palifico_face_change = others)",
        ),
    ]


def _rulebook_probes() -> list[Probe]:
    rulebook = Ruleset()
    return [
        Probe(
            "opening",
            _position(rulebook, [[2, 3, 3, 5, 6], [1, 4, 4, 5, 6], [2, 2, 3, 4, 6]], 0),
            0,
            expect="an opening bid, on any face but pacos",
        ),
        Probe(
            "raise after a paco bid",
            _position(
                rulebook,
                [[1, 4, 4, 5, 6], [2, 3, 3, 5, 6], [2, 2, 3, 4, 6]],
                2,
                [(2, Bid(4, 3)), (0, Bid(2, 1))],
            ),
            1,
            expect="more pacos, at least 5 of another face (2 x 2 + 1), or dudo",
        ),
        Probe(
            "switch to pacos",
            _position(
                rulebook,
                [[1, 1, 4, 5, 6], [2, 3, 3, 5, 6], [2, 2, 3, 4, 6], [3, 3, 5, 5, 6]],
                0,
                [(0, Bid(5, 4)), (1, Bid(7, 5))],
            ),
            2,
            expect="pacos from 4 (half of 7, rounded up), a higher bid, or dudo",
        ),
        Probe(
            "palifico round",
            _position(
                rulebook,
                [[4], [2, 4, 5, 6, 6], [1, 1, 3, 4, 5]],
                0,
                [(0, Bid(1, 4))],
                palifico=True,
            ),
            1,
            expect="more 4s (the face is fixed; pacos are not wild), or dudo",
        ),
        Probe(
            "palifico opening",
            _position(rulebook, [[3], [2, 4, 5, 6, 6], [1, 1, 3, 4, 5]], 0, palifico=True),
            0,
            expect="an opening bid on any face, pacos included",
        ),
        Probe(
            "calza on its turn",
            _position(
                rulebook, [[2, 2, 3, 5, 6], [2, 4, 4, 5, 6], [1, 2, 3, 4, 6]], 0, [(0, Bid(4, 2))]
            ),
            1,
            expect="a raise, dudo or calza (calza = turn)",
        ),
        Probe(
            "no calza when it is off",
            _position(
                Ruleset(calza=CalzaRule.OFF),
                [[2, 2, 3, 5, 6], [2, 4, 4, 5, 6], [1, 2, 3, 4, 6]],
                0,
                [(0, Bid(4, 2))],
            ),
            1,
            expect="a raise or dudo (calza = off)",
        ),
        Probe(
            "calza offer out of turn",
            _position(
                Ruleset(calza=CalzaRule.ANY),
                [[2, 2, 3, 5, 6], [2, 4, 4, 5, 6], [1, 2, 3, 4, 6]],
                0,
                [(0, Bid(4, 2))],
            ),
            2,
            offer=True,
            expect="calza or pass (an out-of-turn offer)",
        ),
        Probe(
            "last die of the table",
            _position(rulebook, [[5], [2]], 0, [(0, Bid(1, 5))]),
            1,
            expect="a raise to 2 dice (the most in play), or dudo",
        ),
    ]
