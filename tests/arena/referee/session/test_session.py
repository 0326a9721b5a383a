"""One session, driven by hand: deadlines, late and stray replies, malformed replies.

The client is a raw grpc stream in the test's own loop, so every byte and
every moment is under the test's control; the referee is real.
"""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest
from referee_harness import Arena, hello, reply, request, run, until

import arena.referee.session.session
import engine
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.records import Decision
from arena.referee.session.reply import next_request_id
from arena.referee.session.session import MAX_STRAY_MESSAGES

BOT = "bot"


def test_an_answer_in_time_is_returned_with_its_thinking_time(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 10.0))
            message = await client.read()
            assert message is not None and message.request.request_id == rid
            await asyncio.sleep(0.1)
            await client.send(reply(rid, pb.ACTION_KIND_BID, count=3, face=4))
            answer = await asking
            assert answer.fault is None
            assert answer.answer == engine.Bid(3, 4)
            assert answer.request_id == rid
            assert answer.sent == "kind: ACTION_KIND_BID count: 3 face: 4"
            assert 0.1 <= answer.elapsed < 10.0

    run(main())


def test_a_late_reply_is_dropped_and_does_not_disturb_the_next_request(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            first = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(first), first, 0.2))
            assert (await client.read()).request.request_id == first  # type: ignore[union-attr]
            late = await asking
            assert late.answer is None and late.fault is not None
            assert late.fault.kind is FaultKind.TIMEOUT
            assert late.fault.request_id == first
            assert late.fault.detail == "no reply within 200 ms"
            await client.send(reply(first, pb.ACTION_KIND_BID, count=9, face=6))  # too late

            second = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(second), second, 2.0))
            assert (await client.read()).request.request_id == second  # type: ignore[union-attr]
            await client.send(reply(first, pb.ACTION_KIND_CALZA))  # stale, while one is pending
            await client.send(reply(second, pb.ACTION_KIND_DUDO))
            answer = await asking
            assert answer.fault is None
            assert answer.answer == engine.DUDO
            assert not session.closed

    run(main())


def test_a_reply_read_past_its_limit_before_the_timer_fires_is_a_timeout(
    live: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reply is read after the deadline, but before the deadline's timer has run.

    That happens when the referee is busy in spells too short for its lag
    monitor to see; here the monitor is stopped and the reply's reading is
    held up past the limit. The bot was late: a timeout that names what it
    sent, not a disconnect, and the session plays on.
    """
    limit = 2.0  # long enough for the reply to reach the referee before the deadline

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with live.serving():
            await live.referee.lag.stop()  # the referee will not notice its own lateness
            client, session = await live.raw_session(BOT)
            route = session.on_data
            read_at = 0.0

            def read_late(data: bytes) -> None:
                time.sleep(max(0.0, read_at + limit + 0.1 - loop.time()))  # timer held off too
                route(data)

            monkeypatch.setattr(session, "on_data", read_late)
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, limit))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            read_at = loop.time()
            await client.send(reply(rid, pb.ACTION_KIND_BID, count=9, face=6))
            late = await asking
            assert late.answer is None and late.fault is not None
            assert late.fault.kind is FaultKind.TIMEOUT, late.fault
            assert late.fault.detail.startswith("reply after"), late.fault.detail
            assert late.fault.detail.endswith("over the 2000 ms limit")
            assert late.fault.sent == "kind: ACTION_KIND_BID count: 9 face: 6"
            assert late.elapsed > limit
            monkeypatch.setattr(session, "on_data", route)

            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 5.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            await client.send(reply(rid))
            assert (await asking).answer == engine.DUDO
            assert not session.closed

    run(main())


def test_each_request_times_out_at_its_own_deadline(live: Arena) -> None:
    """One timer serves the session's requests; every deadline must still hold.

    A reply that comes after an earlier request's deadline has passed, but
    within its own, is on time; and a short limit after a long one faults at
    the short one.
    """

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with live.serving():
            client, session = await live.raw_session(BOT)
            quick = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(quick), quick, 0.3))
            assert (await client.read()).request.request_id == quick  # type: ignore[union-attr]
            await client.send(reply(quick, pb.ACTION_KIND_DUDO))
            assert (await asking).fault is None

            patient = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(patient), patient, 6.0))
            assert (await client.read()).request.request_id == patient  # type: ignore[union-attr]
            await asyncio.sleep(0.45)  # past the first request's deadline, within this one's
            await client.send(reply(patient, pb.ACTION_KIND_DUDO))
            answer = await asking
            assert answer.fault is None and 0.45 <= answer.elapsed < 6.0

            started = loop.time()
            short = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(short), short, 0.05))
            assert (await client.read()).request.request_id == short  # type: ignore[union-attr]
            missed = await asking
            assert missed.fault is not None and missed.fault.kind is FaultKind.TIMEOUT
            # The long request's timer is due over 5 s from here: a generous bound still tells.
            assert loop.time() - started < 3.0, "the short limit waited for the long one's timer"

    run(main())


def test_replies_to_requests_never_sent_are_dropped_then_the_session_is_closed(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(goodbye_grace=0.3):
            client, session = await live.raw_session(BOT)
            # Ids the referee gives out but never sends on this session. (They are
            # older than any request still to come, so they can never be taken for
            # a muddled answer to the request in flight when they are read.)
            never_sent = [next_request_id() for _ in range(MAX_STRAY_MESSAGES + 1)]
            for stray in never_sent[:-1]:
                await client.send(reply(stray))
            # Tolerated so far: the session still answers a real request.
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 2.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            await client.send(reply(rid))
            assert (await asking).answer == engine.DUDO
            # One more is one too many.
            await client.send(reply(never_sent[-1]))
            status, details, kinds = await client.status()
            assert status == grpc.StatusCode.INVALID_ARGUMENT
            assert details == (
                "too many unexpected messages "
                f"(last: reply to request {never_sent[-1]}, which is not awaiting an answer)"
            )
            assert kinds == []
            assert session.closed
            assert await until(lambda: live.lobby.connected() == {}, 5)
            rid = next_request_id()
            gone = await session.ask(request(rid), rid, 1.0)
            # Expelled for what it sent: a malformed message, not a hang-up.
            assert gone.fault is not None and gone.fault.kind is FaultKind.MALFORMED_MESSAGE
            assert gone.fault.detail.startswith("too many unexpected messages")

    run(main())


def _action(kind: int, count: int = 0, face: int = 0) -> pb.Action:
    return pb.Action(kind=kind, count=count, face=face)  # type: ignore[arg-type]


# What the bot sends in answer, what the fault says, what it records as sent.
MALFORMED = {
    "garbage bytes": (
        lambda rid: b"\xff\xff\xff\xff",
        "could not decode a BotMessage from 4 bytes",
        "",
    ),
    "a second Hello": (
        lambda rid: hello(BOT, "whatever").SerializeToString(),
        "expected an ActionReply, got a second Hello",
        "",
    ),
    "an empty message": (
        lambda rid: b"",
        "expected an ActionReply, got a message with no kind set",
        "",
    ),
    "kind unspecified": (
        lambda rid: reply(rid, pb.ACTION_KIND_UNSPECIFIED, count=2, face=3),
        "the action has no valid kind",
        "count: 2 face: 3",
    ),
    "no action at all": (
        lambda rid: pb.BotMessage(reply=pb.ActionReply(request_id=rid)).SerializeToString(),
        "the action has no valid kind",
        "",
    ),
    "an unknown kind": (lambda rid: reply(rid, 99), "the action has no valid kind", "kind: 99"),
    "a reply to a request not yet sent": (
        lambda rid: reply(rid + 1000),
        "the reply names request",
        "",
    ),
    "a dudo with a count": (
        lambda rid: reply(rid, pb.ACTION_KIND_DUDO, count=2, face=3),
        "only a bid has a count and a face",
        "kind: ACTION_KIND_DUDO count: 2 face: 3",
    ),
    "a pass with a face": (
        lambda rid: reply(rid, pb.ACTION_KIND_PASS, face=5),
        "only a bid has a count and a face",
        "kind: ACTION_KIND_PASS face: 5",
    ),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_a_malformed_reply_is_a_malformed_message_fault(live: Arena, case: str) -> None:
    make, words, sent = MALFORMED[case]

    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 10.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            await client.send(make(rid))
            answer = await asking
            assert answer.answer is None and answer.fault is not None
            assert answer.fault.kind is FaultKind.MALFORMED_MESSAGE
            assert words in answer.fault.detail
            assert answer.fault.sent == sent
            assert answer.fault.request_id == rid
            assert answer.elapsed < 10.0
            # The session survives it.
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 2.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            await client.send(reply(rid, pb.ACTION_KIND_PASS))
            assert (await asking).answer == wire.PASS

    run(main())


@pytest.mark.parametrize("how", ["half-close", "cancel"])
def test_a_stream_closed_while_a_request_waits_is_a_prompt_disconnect(
    live: Arena, how: str
) -> None:
    async def main() -> None:
        async with live.serving():
            client, session = await live.raw_session(BOT)
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 10.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            if how == "half-close":
                await client.call.done_writing()
            else:
                client.call.cancel()
            answer = await asyncio.wait_for(asking, 5)
            assert answer.fault is not None
            assert answer.fault.kind is FaultKind.DISCONNECT
            assert answer.fault.request_id == rid
            assert answer.elapsed < 5
            assert await until(lambda: live.lobby.connected() == {}, 5)

    run(main())


def test_late_replies_to_timed_out_requests_never_count_toward_expulsion(
    live: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded machine makes replies late; each is expected once, and never stray."""
    monkeypatch.setattr(arena.referee.session.session, "MAX_STRAY_MESSAGES", 2)

    async def main() -> None:
        async with live.serving(goodbye_grace=0.3):
            client, session = await live.raw_session(BOT)
            for _ in range(6):  # three times the tolerance for stray messages
                rid = next_request_id()
                asking = asyncio.ensure_future(session.ask(request(rid), rid, 0.05))
                assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
                late = await asking
                assert late.fault is not None and late.fault.kind is FaultKind.TIMEOUT
                await client.send(reply(rid))  # too late, but an answer to a request sent
            rid = next_request_id()
            asking = asyncio.ensure_future(session.ask(request(rid), rid, 2.0))
            assert (await client.read()).request.request_id == rid  # type: ignore[union-attr]
            await client.send(reply(rid))
            assert (await asking).answer == engine.DUDO
            assert not session.closed
            # A second answer to one request is not late but unexpected: it counts.
            for _ in range(3):
                await client.send(reply(rid))
            status, details, _ = await client.status()
            assert status == grpc.StatusCode.INVALID_ARGUMENT
            assert details.startswith("too many unexpected messages")

    run(main())


def test_the_referees_own_stall_is_never_charged_to_a_bot(live: Arena) -> None:
    """The referee's loop is held up (time.sleep in a callback) while the bots answer at once.

    Every reply is in before its deadline, but read only after it: by the
    referee's clock each is late, and none may be charged. The decisions the
    referee was late for are recorded as its own.
    """
    names = ("alpha", "bravo", "charlie")
    # A limit generous enough that a bot on a busy machine still answers within it: the
    # stalls, longer than the limit, are what make replies late by the referee's clock.
    move_time = 0.5
    stall = 0.8

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with live.serving(move_time=move_time):
            await live.launch("kit_bot", names)
            stalls = 0

            def hold_up() -> None:
                nonlocal stalls
                stalls += 1
                time.sleep(stall)  # the whole referee stops, as under SIGSTOP or a long GC
                if stalls < 4:
                    loop.call_later(0.15, hold_up)

            loop.call_later(0.05, hold_up)
            records = []
            while stalls < 4:  # a game may end before a stall, or between two: play on
                records.append(await live.play(names, game_id=f"stalled-{len(records)}"))
            for record in records:
                assert record.faults == [], record.faults
            lates = [late for record in records for late in record.referee_late]
            assert lates, "no decision was caught in a stall"
            for late in lates:
                assert late.wall_ms > move_time * 1000 >= late.bot_ms
            # The replays and the thinking times hold the bots' own time, and the stalls
            # as the referee's: none shows a bot "taking" longer than it had. (A stall that
            # fell before a decision's clock started, while the referee had yet to learn that
            # its write ended, is in no decision's `referee_ms`: it was never on the clock.)
            answers = [e for r in records for e in r.events if isinstance(e, Decision)]
            assert all(a.ms <= move_time * 1000 for a in answers), [a.ms for a in answers]
            thought = [ms for r in records for times in r.think_ms for ms in times]
            assert max(thought) <= move_time * 1000

    run(main())
