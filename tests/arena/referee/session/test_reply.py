"""`reply_of`: a bot's reply as an answer or the fault it comes to, by the referee's clock
less the referee's own lateness."""

from __future__ import annotations

import pytest

import engine
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.protocol.messages import referee as pb
from arena.referee.session.reply import REASON_CHARS, bot_reason, reply_of


def _message(kind: int, count: int = 0, face: int = 0, reason: str = "") -> pb.BotMessage:
    action = pb.Action(kind=kind, count=count, face=face)  # type: ignore[arg-type]
    return pb.BotMessage(reply=pb.ActionReply(request_id=7, action=action, reason=reason))


BID = _message(pb.ACTION_KIND_BID, 3, 5)


def test_a_reply_in_time_is_its_answer_with_its_times() -> None:
    reply = reply_of(BID, 7, elapsed=0.2, lag=0.0, wall=0.21, limit=1.0)
    assert reply.fault is None
    assert reply.answer == engine.Bid(3, 5)
    assert (reply.elapsed, reply.referee_lag, reply.wall, reply.request_id) == (0.2, 0.0, 0.21, 7)


def test_a_reply_late_by_the_referees_clock_is_a_timeout_naming_how_late() -> None:
    reply = reply_of(BID, 7, elapsed=1.25, lag=0.0, wall=1.25, limit=1.0)
    assert reply.answer is None and reply.fault is not None
    assert reply.fault.kind is FaultKind.TIMEOUT
    assert reply.fault.detail == "reply after 1250 ms, 250 ms over the 1000 ms limit"
    assert reply.fault.sent == "kind: ACTION_KIND_BID count: 3 face: 5"


def test_the_referees_own_lateness_is_taken_off_before_the_limit() -> None:
    # Read 1.25 s after it was written, 0.5 s of which the referee was held up: in time.
    reply = reply_of(BID, 7, elapsed=1.25, lag=0.5, wall=1.3, limit=1.0)
    assert reply.fault is None and reply.answer == engine.Bid(3, 5)
    assert reply.referee_lag == 0.5
    # The same, held up only 0.2 s: 1.05 s of its own, a timeout by 50 ms.
    late = reply_of(BID, 7, elapsed=1.25, lag=0.2, wall=1.3, limit=1.0)
    assert late.fault is not None and late.fault.kind is FaultKind.TIMEOUT
    assert late.fault.detail == "reply after 1050 ms, 50 ms over the 1000 ms limit"


@pytest.mark.parametrize(
    ("message", "words"),
    [
        (_message(pb.ACTION_KIND_UNSPECIFIED), "the action has no valid kind"),
        (_message(pb.ACTION_KIND_DUDO, 2, 0), "only a bid has a count and a face"),
        (_message(pb.ACTION_KIND_CALZA, 0, 4), "only a bid has a count and a face"),
    ],
)
def test_an_action_that_is_no_action_is_a_malformed_message(
    message: pb.BotMessage, words: str
) -> None:
    reply = reply_of(message, 7, elapsed=0.1, lag=0.0, wall=0.1, limit=1.0)
    assert reply.answer is None and reply.fault is not None
    assert reply.fault.kind is FaultKind.MALFORMED_MESSAGE
    assert words in reply.fault.detail


def test_the_bots_reason_follows_a_fault_and_is_kept_with_an_answer() -> None:
    words = "my parser\x1b[2J read 9"
    said = _message(pb.ACTION_KIND_DUDO, 2, 9, reason=words)
    reply = reply_of(said, 7, elapsed=0.1, lag=0.0, wall=0.1, limit=1.0)
    assert reply.fault is not None
    assert reply.fault.detail.endswith(f"(the bot says: {bot_reason(words)})")
    assert "\x1b" not in reply.fault.detail
    fine = reply_of(_message(pb.ACTION_KIND_DUDO, reason="x" * 1000), 7, 0.1, 0.0, 0.1, 1.0)
    assert fine.answer is engine.DUDO and fine.fault is None
    assert len(fine.reason) == REASON_CHARS


def test_a_bid_the_rules_refuse_is_still_an_answer_here() -> None:
    # Whether a bid is legal is the engine's to say (an illegal action), not the wire's.
    reply = reply_of(_message(pb.ACTION_KIND_BID, 2, 9), 7, 0.1, 0.0, 0.1, 1.0)
    assert reply.fault is None and reply.answer == engine.Bid(2, 9)


def test_a_pass_and_a_calza_are_answers() -> None:
    assert reply_of(_message(pb.ACTION_KIND_PASS), 7, 0.1, 0.0, 0.1, 1.0).answer is wire.PASS
    assert reply_of(_message(pb.ACTION_KIND_CALZA), 7, 0.1, 0.0, 0.1, 1.0).answer is engine.CALZA


def test_the_links_credit_is_taken_off_before_the_limit_and_no_more() -> None:
    # 0.3 s from write to read at a 0.15 s limit: 0.2 s of link credited, 0.1 s its own.
    assert reply_of(BID, 7, elapsed=0.3, lag=0.0, wall=0.3, limit=0.15, credit=0.2).fault is None
    late = reply_of(BID, 7, elapsed=0.3, lag=0.0, wall=0.3, limit=0.15, credit=0.1).fault
    assert late is not None and late.kind is FaultKind.TIMEOUT
    assert late.detail == (
        "reply after 200 ms, 50 ms over the 150 ms limit (its link's 100 ms not counted)"
    )
