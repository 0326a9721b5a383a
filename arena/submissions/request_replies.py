"""The RequestGames call's side of the service: a request taken or refused, then followed.

The reply stream says at once whether the request was taken (its ticket) or refused (an
outcome with why), then, while the caller stays, each game as it ends and the outcome. A
caller that hangs up stops only its own stream: the request plays on, and its outcome is
kept for the author's page.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from arena.protocol.messages import submission as spb
from arena.store import StoreError
from arena.store.requests import PlayedGame, RequestRow
from arena.submissions.requests import (
    Desk,
    RequestRefusedError,
    left_today,
    places,
    scores,
    seats_of,
)


def refusal(reason: str) -> spb.RequestReply:
    outcome = spb.RequestOutcome(accepted=False, state="refused", reason=reason)
    return spb.RequestReply(outcome=outcome)


def game_message(game: PlayedGame) -> spb.RequestedGame:
    return spb.RequestedGame(game=game.game, ranking=list(game.ranking), replay=game.replay)


def outcome_message(row: RequestRow) -> spb.RequestOutcome:
    return spb.RequestOutcome(
        accepted=True,
        id=row.uid,
        state=row.state.value,
        reason=row.reason,
        games=[game_message(g) for g in row.played],
        scores=[
            spb.OpponentScore(opponent=s.opponent, games=s.games, ahead=s.ahead)
            for s in scores(row)
        ],
        places=places(row),
    )


async def answer(desk: Desk, request: spb.GamesRequest, context: Any) -> None:
    """Take `request` (its sender already known to be the entrant it names) and follow it."""
    now = time.time()
    try:
        version = request.version or None
        row = desk.ask(request.name, version, list(request.against), request.games, now)
        left = left_today(desk.store, desk.limits, request.name, now)
    except (RequestRefusedError, StoreError) as error:
        await context.write(refusal(str(error)))
        return
    heard: asyncio.Queue[PlayedGame | RequestRow] = asyncio.Queue()
    forget = desk.follow(row.uid, heard.put_nowait)
    try:
        ticket = spb.RequestTicket(
            id=row.uid,
            seats=seats_of(row),
            games=row.games,
            left_today=left,
            ahead=desk.ahead_of(row.uid),
        )
        await context.write(spb.RequestReply(ticket=ticket))
        while True:
            item = await heard.get()
            if isinstance(item, PlayedGame):
                await context.write(spb.RequestReply(game=game_message(item)))
                continue
            await context.write(spb.RequestReply(outcome=outcome_message(item)))
            return
    finally:
        forget()
