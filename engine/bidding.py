"""Which bids raise which: the one place the raising rules of RULES.md live.

Every rule about raising reduces to a floor: for each face, the smallest count
that may be bid on it now, or 0 when that face may not be bid at all. A bid is
legal exactly when its count lies between its face's floor and the dice in
play. The legal listing, the legality check and the bots' requests all read
the same floors, so they cannot disagree.
"""

from __future__ import annotations

from engine.actions import FACES, PACO, Bid
from engine.errors import IllegalActionError, Rule
from engine.ruleset import Ruleset


def floors(
    ruleset: Ruleset,
    standing: Bid | None,
    palifico: bool,
    bidder_dice: int,
    dice_in_play: int,
) -> tuple[int, int, int, int, int, int]:
    """The smallest legal count for faces 1..6 (0 = that face may not be bid)."""
    result = [_floor(ruleset, standing, palifico, bidder_dice, f) for f in FACES]
    return tuple(f if f <= dice_in_play else 0 for f in result)  # type: ignore[return-value]


def _floor(
    ruleset: Ruleset, standing: Bid | None, palifico: bool, bidder_dice: int, face: int
) -> int:
    if standing is None:
        return 0 if (face == PACO and not palifico) else 1
    count, current = standing.count, standing.face
    if palifico:
        if face == current:
            return count + 1
        if ruleset.palifico_one_die_may_change_face and bidder_dice == 1:
            # Pacos are not wild here, so faces rank by value: 1 is lowest.
            return count if face > current else count + 1
        return 0
    if current == PACO:
        return count + 1 if face == PACO else 2 * count + 1
    if face == PACO:
        return (count + 1) // 2
    if face > current:
        return count
    if face == current or ruleset.lower_face_with_higher_count:
        return count + 1
    return 0


def refuse_bid(
    ruleset: Ruleset,
    standing: Bid | None,
    palifico: bool,
    bidder_dice: int,
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
    floor = _floor(ruleset, standing, palifico, bidder_dice, face)
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
    return "no bid" if standing is None else f"{standing.count} x {_face_name(standing.face)}"


def _face_name(face: int) -> str:
    return "pacos" if face == PACO else f"{face}s"


def count_for(hands: tuple[tuple[int, ...], ...], face: int, palifico: bool) -> int:
    """How many dice on the table count for `face`: pacos are wild unless palifico or bid."""
    if palifico or face == PACO:
        return sum(hand.count(face) for hand in hands)
    return sum(hand.count(face) + hand.count(PACO) for hand in hands)
