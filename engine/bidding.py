"""Which bids raise which: the one place the raising rules of docs/rules.md live.

Every rule about raising reduces to a floor: for each face, the smallest count
that may be bid on it now, or 0 when that face may not be bid at all. A bid is
legal exactly when its count lies between its face's floor and the dice in
play. The legal listing, the legality check and the bots' requests all read
the same floors, so they cannot disagree.
"""

from __future__ import annotations

import functools

from engine.actions import FACES, PACO, Bid
from engine.errors import IllegalActionError, Rule
from engine.ruleset import Ruleset


def floors(
    ruleset: Ruleset,
    standing: Bid | None,
    palifico: bool,
    face_free: bool,
    dice_in_play: int,
) -> tuple[int, ...]:
    """The smallest legal count for faces 1..6 (0 = that face may not be bid).

    `face_free`: the bidder may name another face in this palifico round
    (`palifico_face_change`; `engine.game` knows who the palifico player is).
    """
    result = _raw_floors(ruleset, standing, palifico, face_free)
    if max(result) <= dice_in_play:
        return result
    return tuple(f if f <= dice_in_play else 0 for f in result)


def _raw_floors(
    ruleset: Ruleset, standing: Bid | None, palifico: bool, face_free: bool
) -> tuple[int, ...]:
    if standing is None:
        return _OPEN_ANY if palifico or ruleset.open_on_pacos else _OPEN_ORDINARY
    return _raise_floors(
        standing.count,
        standing.face,
        palifico,
        palifico and face_free,
        ruleset.lower_face_with_higher_count,
    )


@functools.lru_cache(maxsize=4096)
def _raise_floors(
    count: int, current: int, palifico: bool, one_die_free: bool, lower_allowed: bool
) -> tuple[int, ...]:
    """The floors above a standing bid; cached, since the referee asks twice per decision."""
    if palifico:
        if one_die_free:
            # Pacos are not wild here, so faces rank by value: 1 is lowest.
            return tuple(count if face > current else count + 1 for face in FACES)
        return tuple(count + 1 if face == current else 0 for face in FACES)
    if current == PACO:
        return (count + 1, *(2 * count + 1,) * 5)
    lower = count + 1 if lower_allowed else 0
    others = (count if f > current else count + 1 if f == current else lower for f in FACES[1:])
    return ((count + 1) // 2, *others)


_OPEN_ORDINARY = (0, 1, 1, 1, 1, 1)
_OPEN_ANY = (1, 1, 1, 1, 1, 1)


def refuse_bid(
    ruleset: Ruleset,
    standing: Bid | None,
    palifico: bool,
    face_free: bool,
    dice_in_play: int,
    bid: Bid,
) -> IllegalActionError | None:
    """Why `bid` is not a legal raise of `standing`, or None when it is."""
    count, face = bid.count, bid.face
    if face not in FACES:
        return IllegalActionError(Rule.FACE_RANGE, f"{bid}: a face is 1..6")
    if not 1 <= count <= dice_in_play:
        return IllegalActionError(
            Rule.COUNT_RANGE, f"{bid}: the count must be 1..{dice_in_play} (the dice in play)"
        )
    floor = _raw_floors(ruleset, standing, palifico, face_free)[face - 1]
    if floor == 0:
        return _why_face_refused(ruleset, standing, palifico, bid)
    if count < floor:
        return IllegalActionError(
            Rule.BID_TOO_LOW,
            f"{bid}: after {_describe(standing)} the smallest bid on {_face_name(face)} is {floor}",
        )
    return None


def _why_face_refused(
    ruleset: Ruleset, standing: Bid | None, palifico: bool, bid: Bid
) -> IllegalActionError:
    if standing is None:
        return IllegalActionError(
            Rule.OPENING_ON_PACOS, f"{bid}: an ordinary round may not open on pacos"
        )
    if palifico:
        return IllegalActionError(
            Rule.PALIFICO_FACE_FIXED,
            f"{bid}: in a palifico round the face stays {_face_name(standing.face)}",
        )
    return IllegalActionError(
        Rule.FACE_LOWER,
        f"{bid}: lower_face_with_higher_count is off, so a higher count may not name "
        f"a lower face than {_face_name(standing.face)}",
    )


def _describe(standing: Bid | None) -> str:
    return "no bid" if standing is None else f"{standing.count} {_face_name(standing.face)}"


def _face_name(face: int) -> str:
    return "pacos" if face == PACO else f"{face}s"


def count_for(hands: tuple[tuple[int, ...], ...], face: int, palifico: bool) -> int:
    """How many dice on the table count for `face`: pacos are wild unless palifico or bid."""
    if palifico or face == PACO:
        return sum(hand.count(face) for hand in hands)
    return sum(hand.count(face) + hand.count(PACO) for hand in hands)
