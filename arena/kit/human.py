"""A person at the terminal, playing through the protocol like any bot.

    python -m arena.kit.human      (started by `arena play`, with the PERUDO_* variables)

Each request is shown as the person needs it: the round, every seat's dice
count, their own dice, the bids so far and who made them, and what each
round that ended since their last turn revealed, with the bids made after
their turn in it. Bids read as said at the table ("one 5", "three 5s"). They
answer at a prompt (`bid 3 5`, `dudo`, `calza`, or `pass` on a calza offer);
a line that is no action, or an action the rules do not allow now, is
answered with the rule's reason and asked again. It never becomes a fault:
the referee gives this seat time enough for a person. When their input ends
(Ctrl-D, or the end of a script) they leave the table: it is said, and the
client exits 0, which `arena play` reports as the person leaving. Text goes
to stdout as plain text (names are written by bots and are never interpreted).
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence

from arena.kit import RefusedError, connection_from_env, serve_sessions
from arena.kit.errors import InputEndedError
from arena.protocol import wire
from arena.protocol.messages import referee as pb
from engine import CALZA, DUDO, Bid, MalformedActionError, Observation, RoundOutcome, parse_action
from engine.bidding import refuse_bid

ReadLine = Callable[[], Awaitable[str]]
"""The next line the person typed, "" once their input has ended."""

Write = Callable[[str], None]
"""Shows one line to the person (`PROMPT` is shown without ending its line)."""

PROMPT = "> "
LEFT = "You leave the table: your input ended."
"""Said as the person's input ends: `arena play` reports the seat as left, not crashed."""

_HOW = {
    pb.ROUND_END_DUDO: "dudo",
    pb.ROUND_END_CALZA: "calza",
    pb.ROUND_END_FAULT: "a fault",
}


_UNITS = (
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen",
)  # fmt: skip
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")


def _number(n: int) -> str:
    """A count as it is said: "one", "fourteen", "twenty-one"; figures from 100."""
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return _TENS[tens - 2] + (f"-{_UNITS[unit]}" if unit else "")
    return str(n)


def say_bid(count: int, face: int) -> str:
    """A bid as it is said at the table: "one 5", "three 5s", "two 1s"."""
    return f"{_number(count)} {face}" + ("s" if count != 1 else "")


def _bid(bid: pb.Bid) -> str:
    return say_bid(bid.count, bid.face)


def _dice(dice: Sequence[int]) -> str:
    return " ".join(str(d) for d in dice) or "-"


def _count(dice: int) -> str:
    return f"{dice} {'die' if dice == 1 else 'dice'}"


def describe_round_end(
    result: pb.RoundResult, players: Sequence[str], me: int, seen: int | None = None
) -> list[str]:
    """A round's end as told to the table: how it ended, the bids the person has not seen
    (`seen`: how many of the round's bids they saw, their own included; None when they
    were shown nothing of it), every hand revealed, who lost."""
    caller = players[result.caller_seat]
    lines = [f"Round {result.round} ends by {_HOW.get(result.end, 'an unknown end')} ({caller})."]
    unseen = list(result.bids)[seen or 0 :]
    if unseen:
        said = ", ".join(f"{players[b.seat]} {_bid(b)}" for b in unseen)
        lines.append(f"  {'After your turn' if seen else 'The bids'}: {said}.")
    if result.end != pb.ROUND_END_FAULT:
        bid = f"{_bid(result.bid)} by {players[result.bid.seat]}" if result.HasField("bid") else ""
        lines.append(f"  The bid was {bid}; {result.counted} counted.")
        for seat, hand in enumerate(result.hands):
            if hand.dice:
                lines.append(f"  {players[seat]:>16}: {_dice(hand.dice)}")
    change = result.dice_change
    mine = result.changed_seat == me
    who = "You" if mine else players[result.changed_seat]
    if change < -1:
        lines.append(f"  {who} {'are' if mine else 'is'} out of the game.")
    elif change == -1:
        lines.append(f"  {who} {'lose' if mine else 'loses'} a die.")
    elif change == 1:
        lines.append(f"  {who} {'gain' if mine else 'gains'} a die.")
    else:
        lines.append(f"  {who} {'keep' if mine else 'keeps'} every die.")
    return lines


def describe_request(request: pb.ActionRequest, seen: tuple[int, int] | None = None) -> list[str]:
    """The table as the person sees it when it is their turn (or a calza offer); `seen`:
    the round they were last shown, and how many of its bids (see `describe_round_end`)."""
    players = request.players
    lines: list[str] = []
    for result in request.results:
        shown = seen[1] if seen is not None and seen[0] == result.round else None
        lines.extend(describe_round_end(result, players, request.seat, shown))
    palifico = " (palifico: pacos are not wild, the face is fixed)" if request.palifico else ""
    lines.append(f"--- Round {request.round}{palifico}, game {request.game_id}")
    for seat, name in enumerate(players):
        you = "  <- you" if seat == request.seat else ""
        lines.append(f"  {name:>16}: {_count(request.dice_counts[seat])}{you}")
    lines.append(f"  Your dice: {_dice(request.my_dice)}")
    if request.bids:
        said = ", ".join(f"{players[b.seat]} {_bid(b)}" for b in request.bids)
        lines.append(f"  Bids so far: {said}")
    else:
        lines.append("  No bids yet: you open the round.")
    if request.kind == pb.REQUEST_KIND_CALZA_OFFER:
        standing = request.bids[-1]
        lines.append(
            f"Calza offer: {players[standing.seat]} bid {_bid(standing)}. "
            "Answer calza (exactly right) or pass."
        )
    else:
        options = ["bid COUNT FACE"]
        if request.dudo_allowed:
            options.append("dudo")
        if request.calza_allowed:
            options.append("calza")
        lines.append(f"Your turn ({', '.join(options)}).")
    return lines


def read_answer(text: str, obs: Observation, offer: bool) -> wire.Answer | str:
    """The action the person typed, or why it cannot be taken now (to ask again)."""
    words = text.strip().lower()
    if offer:
        if words == "pass":
            return wire.PASS
        if words == "calza":
            return CALZA
        return "on a calza offer, answer calza or pass"
    if words == "pass":
        return "pass answers only a calza offer; bid, or call dudo"
    try:
        action = parse_action(words)
    except MalformedActionError:
        return "type bid COUNT FACE (e.g. bid 3 5), dudo or calza"
    if action == DUDO:
        return action if obs.can_dudo else "dudo is not allowed now (there is no bid to doubt)"
    if action == CALZA:
        return action if obs.can_calza else "calza is not allowed now"
    assert isinstance(action, Bid)
    if not obs.may_bid(action):
        floors = ", ".join(
            f"{face}s from {floor}" for face, floor in enumerate(obs.floors, 1) if floor
        )
        return f"{_why_not(obs, action)}; legal: {floors}, up to {obs.dice_in_play}"
    return action


def _why_not(obs: Observation, bid: Bid) -> str:
    """Why a bid the floors refuse is refused, in the rule book's words (an ordinary round
    may not open on pacos, the face is fixed in palifico, ...)."""
    standing = obs.standing
    # A seat may change the face in palifico exactly when its floors offer another face.
    free = obs.palifico and any(
        floor for face, floor in enumerate(obs.floors, 1) if standing and face != standing.face
    )
    refusal = refuse_bid(obs.ruleset, standing, obs.palifico, free, obs.dice_in_play, bid)
    return refusal.detail if refusal is not None else f"{bid} is not a legal bid now"


class HumanHandler:
    """One session, answered by the person at the terminal."""

    def __init__(self, read_line: ReadLine, write: Write) -> None:
        self._read = read_line
        self._write = write
        self._history: dict[str, tuple[RoundOutcome, ...]] = {}
        self._seen: dict[str, tuple[int, int]] = {}
        """Per game: the round last shown to the person, and how many of its bids they have
        seen, their own last one included: a round's end shows them the bids after it."""

    async def open(self) -> None:
        self._write("Waiting for the game to begin...")

    async def request(self, request: pb.ActionRequest) -> pb.Action:
        known = self._history.get(request.game_id, ())
        known += tuple(wire.outcome_from_proto(r) for r in request.results)
        self._history[request.game_id] = known
        obs = wire.observation_from_proto(request, known)
        for line in describe_request(request, self._seen.get(request.game_id)):
            self._write(line)
        offer = request.kind == pb.REQUEST_KIND_CALZA_OFFER
        while True:
            self._write(PROMPT)
            line = await self._read()
            if not line:
                self._write(LEFT)
                raise InputEndedError("the input ended before the game did")
            answer = read_answer(line, obs, offer)
            if not isinstance(answer, str):
                bids = len(request.bids) + isinstance(answer, Bid)
                self._seen[request.game_id] = (request.round, bids)
                return wire.answer_to_proto(answer)
            self._write(f"Not that: {answer}. Try again.")

    async def game_over(self, message: pb.GameOver) -> None:
        self._history.pop(message.game_id, None)
        seen = self._seen.pop(message.game_id, None)
        players = message.players
        for result in message.results:
            shown = seen[1] if seen is not None and seen[0] == result.round else None
            for line in describe_round_end(result, players, message.seat, shown):
                self._write(line)
        order = ", ".join(
            f"{place}. {players[seat]}" for place, seat in enumerate(message.order, 1)
        )
        self._write(f"=== Game {message.game_id} is over: {order}")
        if message.HasField("fault"):
            self._write(f"(your fault: {message.fault.detail})")

    async def close(self) -> None:
        return None


async def _stdin_line() -> str:
    return await asyncio.to_thread(sys.stdin.readline)


def _stdout(text: str) -> None:
    print(text, end="" if text == PROMPT else "\n", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    conn = connection_from_env(name="you", argv=argv, bot_version="human")
    try:
        asyncio.run(serve_sessions(conn, lambda: HumanHandler(_stdin_line, _stdout)))
    except (RefusedError, ConnectionError) as error:
        print(f"human: {error}", file=sys.stderr)
        return 1
    except InputEndedError:
        return 0  # the person left: said as it happened (LEFT), and no error of the program
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
