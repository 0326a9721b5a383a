"""Faults say what was wrong: the bot's own reason, how late a late reply was, exits in words."""

from __future__ import annotations

import asyncio
import re
import signal

from referee_harness import Arena, hello, run

from arena.checkbot.positions import HouseSeat
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.records import FaultEvent
from arena.referee.clock.deadline import TimeControl
from arena.referee.match import GameSpec, Match, Seat
from arena.referee.session.exits import describe_exit
from arena.referee.session.reply import REASON_CHARS, Reply, bot_reason, next_request_id
from engine import FaultPenalty, Opener, Ruleset

BOT = "bot"
SEED = b"fault words: a fixed seed for the dice of these games"


def test_a_reason_is_one_line_and_capped() -> None:
    assert bot_reason("bad\nline\x1b[31m  here\t!") == "bad line\\x1b[31m here !"
    assert bot_reason("\u202eok\x9b2J") == "\\u202eok\\x9b2J"
    long = bot_reason("x" * (REASON_CHARS * 3))
    assert len(long) == REASON_CHARS and long.endswith("\u2026")
    escapes = bot_reason("\x1b" * REASON_CHARS)
    assert len(escapes) <= REASON_CHARS and escapes == "\\x1b" * (len(escapes) // 4) + "\u2026"


def test_exit_statuses_are_told_in_words() -> None:
    assert describe_exit(-signal.SIGTERM).startswith("killed by SIGTERM (signal 15")
    assert describe_exit(-signal.SIGKILL).startswith("killed by SIGKILL (signal 9")
    assert "128 + 15: killed by SIGTERM" in describe_exit(143)
    assert "128 + 9: killed by SIGKILL" in describe_exit(137)
    assert describe_exit(1).startswith("exited with code 1 (an error")
    assert describe_exit(127) == "exited with code 127 (the command was not found)"
    assert describe_exit(3) == "exited with code 3"


def _answer(request: pb.ActionRequest) -> pb.Action:
    """Something legal: pass an offer, dudo when allowed, else the lowest bid on the top face."""
    if request.kind == pb.REQUEST_KIND_CALZA_OFFER:
        return pb.Action(kind=pb.ACTION_KIND_PASS)
    if request.dudo_allowed:
        return pb.Action(kind=pb.ACTION_KIND_DUDO)
    face = max(f for f in range(1, 7) if request.min_count[f - 1])
    return pb.Action(kind=pb.ACTION_KIND_BID, count=request.min_count[face - 1], face=face)


def test_a_malformed_reply_records_the_bots_reason_capped(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            rid = next_request_id()
            message = pb.RefereeMessage(request=pb.ActionRequest(request_id=rid))
            asking = asyncio.ensure_future(session.ask(message.SerializeToString(), rid, 5.0))
            assert (await client.read()) is not None
            why = "bridge: cannot use 'debug'\n" + "y" * 1000
            reply = pb.ActionReply(request_id=rid, action=pb.Action(), reason=why)
            await client.send(pb.BotMessage(reply=reply))
            answer = await asking
            assert answer.fault is not None
            assert answer.fault.kind is FaultKind.MALFORMED_MESSAGE
            detail = answer.fault.detail
            assert detail.startswith("the action has no valid kind")
            assert "(the bot says: bridge: cannot use 'debug' yyy" in detail
            assert "\n" not in detail and len(detail) < 100 + REASON_CHARS

    run(main())


def test_a_timeout_says_how_late_the_reply_came(live: Arena) -> None:
    """The bot answers its first request only once the referee has moved on (its next
    request has come): the timeout's record, the replay and its GameOver say how late."""
    limit = 0.2

    async def main() -> None:
        async with live.serving():
            client = live.raw()
            await client.send(hello(BOT, live.token(BOT)))
            assert (await client.read()) is not None
            await live.wait_connected([BOT])
            [session] = await live.borrow([BOT])
            told: list[pb.GameOver] = []

            async def bot() -> None:
                late: int | None = None
                while (message := await client.read(10)) is not None:
                    if message.WhichOneof("kind") == "game_over":
                        told.append(message.game_over)
                        return
                    request = message.request
                    if late is None:  # the first: left unanswered until the next comes
                        late = request.request_id
                        continue
                    if late > 0:
                        reply = pb.ActionReply(request_id=late, action=_answer(request))
                        await client.send(pb.BotMessage(reply=reply))
                        late = 0
                    reply = pb.ActionReply(request_id=request.request_id, action=_answer(request))
                    await client.send(pb.BotMessage(reply=reply))

            playing = asyncio.ensure_future(bot())
            seats: list[Seat] = [session, HouseSeat("house")]
            ruleset = Ruleset(opener=Opener.SEAT0, fault_penalty=FaultPenalty.LOSE_DIE)
            spec = GameSpec("late-1", (BOT, "house"), "late-1", ruleset)
            record = await Match(spec, seats, SEED, TimeControl(limit)).play()
            await asyncio.wait_for(playing, 10)

            [fault, *_] = [f for f in record.faults if f.seat == 0]
            assert fault.fault.kind is FaultKind.TIMEOUT
            pattern = r"^no reply within 200 ms; it replied \d+\.\d\d s after the 0\.20 s limit$"
            assert re.match(pattern, fault.fault.detail), fault.fault.detail
            [event, *_] = [e for e in record.events if isinstance(e, FaultEvent) and e.seat == 0]
            assert event.detail == fault.fault.detail
            assert told and told[0].fault.detail == fault.fault.detail

    run(main())


class Spy(HouseSeat):
    """A house seat that keeps every byte the referee gives it."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.seen: list[bytes] = []

    async def ask(
        self, request: bytes, request_id: int, timeout: float, allowance: float = 0.0
    ) -> Reply:
        self.seen.append(request)
        return await super().ask(request, request_id, timeout)

    async def send(self, message: pb.RefereeMessage) -> bool:
        self.seen.append(message.SerializeToString())
        return True


def test_the_reason_is_kept_from_the_other_bots(live: Arena) -> None:
    secret = "SECRET-REASON-7f3a"

    async def main() -> None:
        async with live.serving():
            client = live.raw()
            await client.send(hello(BOT, live.token(BOT)))
            assert (await client.read()) is not None
            await live.wait_connected([BOT])
            [session] = await live.borrow([BOT])

            async def bot() -> None:
                while (message := await client.read(10)) is not None:
                    if message.WhichOneof("kind") == "game_over":
                        return
                    request = message.request
                    bad = request.round == 1  # every answer of round 1 has no kind
                    action = pb.Action() if bad else _answer(request)
                    reply = pb.ActionReply(
                        request_id=request.request_id, action=action, reason=secret if bad else ""
                    )
                    await client.send(pb.BotMessage(reply=reply))

            playing = asyncio.ensure_future(bot())
            spies = [Spy("house-1"), Spy("house-2")]
            seats: list[Seat] = [session, *spies]
            ruleset = Ruleset(opener=Opener.SEAT0, fault_penalty=FaultPenalty.LOSE_DIE)
            spec = GameSpec("secret-1", (BOT, "house-1", "house-2"), "secret-1", ruleset)
            record = await Match(spec, seats, SEED, TimeControl(5.0)).play()
            await asyncio.wait_for(playing, 10)
            assert any(secret in f.fault.detail for f in record.faults)
            for spy in spies:
                assert spy.seen and not any(secret.encode() in data for data in spy.seen)

    run(main())
