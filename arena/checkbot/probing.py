"""Probes: one exact position sent to the bot as a real request, its answer judged.

Each position is built with the engine (see `positions`); the answer must fit
the request, be legal there, and come on time. A probe that timed out waits
a little more for the reply, to say how late it came; one whose session
ended tells a crash from a hang-up by the process's exit. A bridged program
that printed a line that is not JSON is told so in one line, and the check
ends there: every answer after that line comes one request late, and each
would be a failure of its own that says nothing more.
"""

from __future__ import annotations

import asyncio
import dataclasses

import engine
from arena.checkbot.positions import OPPONENT, Probe
from arena.checkbot.verdict import Check, near_limit, slow_first
from arena.kit.bridge import not_json_line
from arena.protocol import wire
from arena.protocol.faults import Fault, FaultKind
from arena.referee.clock.deadline import GameClock, TimeControl
from arena.referee.match import answer_misfit
from arena.referee.session.reply import Reply, next_request_id
from arena.referee.session.session import Session
from arena.text import printable

STDOUT = "stdout holds only answers"


async def probe_bot(
    session: Session, probe: Probe, clock: TimeControl, first: bool = False
) -> Check:
    """Send the probe's position on `session` and judge what comes back; the `first` the bot
    is asked is also judged for a slow start."""
    request_id = next_request_id()
    game_id = f"check-{probe.name.replace(' ', '-')}"
    players = tuple(
        OPPONENT if s != probe.seat else session.name for s in range(probe.state.players)
    )
    request = wire.encode_request(
        engine.observe(probe.state, probe.seat),
        request_id=request_id,
        offer=probe.offer,
        game_id=game_id,
        players=players,
        ruleset=wire.ruleset_to_proto(probe.state.ruleset),
        news=(),
        time_left_ms=round(clock.move_time * 1000),
    )
    reply = await session.ask(request, request_id, GameClock(clock, 1).limit(0))
    if reply.fault is not None and reply.late is not None:
        reply = await _lateness(reply, max(clock.move_time, 1.0))
    if reply.fault is not None and reply.fault.kind is FaultKind.DISCONNECT:
        how = await session.crashed()
        if how is not None:
            crash = Fault(FaultKind.CRASH, f"the bot's process died, {how}", "", request_id)
            reply = dataclasses.replace(reply, fault=crash)
    check = _judge(probe, reply, clock.move_time, first)
    await session.send(
        wire.game_over_to_proto(
            game_id=game_id,
            seat=probe.seat,
            order=[probe.seat, *(s for s in range(probe.state.players) if s != probe.seat)],
            players=players,
            news=(),
            fault=reply.fault,
        )
    )
    return check


async def _lateness(reply: Reply, within: float) -> Reply:
    """A timed-out probe waits `within` seconds more for the reply, to say how late it came:
    a bot a little too slow and one that never answers want different fixes."""
    assert reply.fault is not None and reply.late is not None
    try:
        async with asyncio.timeout(within):
            late = await asyncio.shield(reply.late)
    except TimeoutError:
        late = f"no reply came in {within:.1f} s more either"
    fault = dataclasses.replace(reply.fault, detail=f"{reply.fault.detail}; {late}")
    return dataclasses.replace(reply, fault=fault)


def _judge(probe: Probe, reply: Reply, move_time: float, first: bool) -> Check:
    name = f"{probe.name}"
    line = not_json_line(reply.reason) if reply.fault is not None else None
    if line is not None:
        return Check(
            STDOUT,
            False,
            f"a line of the program's stdout is not JSON: '{printable(line)}'; the bridge reads "
            "every line of stdout as an answer, so one such line shifts every later answer one "
            "request late (a wrong request_id): write debug output to stderr",
            final=True,
        )
    if reply.fault is not None:
        sent = f"; it sent {reply.fault.sent}" if reply.fault.sent else ""
        return Check(
            name,
            False,
            f"{reply.fault.kind.value}: {reply.fault.detail}{sent}; expected {probe.expect}",
        )
    answer = reply.answer
    timing = f"{reply.elapsed * 1000:.1f} ms"
    why = answer_misfit(answer, probe.offer)
    if why is None and isinstance(answer, engine.Bid | engine.Dudo | engine.Calza):
        refusal = engine.refusal(probe.state, probe.seat, answer)
        why = None if refusal is None else str(refusal)
    if why is None:
        ms = reply.elapsed * 1000
        warning = near_limit(ms, move_time) or (slow_first(ms, move_time) if first else "")
        return Check(name, True, f"{answer} ({timing})", warning)
    return Check(
        name, False, f"it sent {answer}, which is illegal ({why}); expected {probe.expect}"
    )
