"""The Python bot kit, as a bot author uses it: `run(act)` in a process of its own."""

from __future__ import annotations

from referee_harness import Arena, run, until

import engine
from arena.protocol import wire
from arena.protocol.faults import FaultKind
from arena.referee.session.reply import next_request_id

BOT = "kitted"


def test_a_kit_bot_opens_its_sessions_and_leaves_on_goodbye(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(goodbye_grace=2.0):
            proc = live.spawn("kit_bot", BOT, sessions=3)
            await live.wait_connected([BOT], sessions=3)
            assert live.lobby.connected() == {BOT: 3}
            await live.referee.stop()
            assert await live.wait_exit(proc, 30) == 0  # a generous limit: it left, and cleanly
            assert live.lobby.connected() == {}
            assert "Traceback" not in live.log(BOT)

    run(main())


def test_a_kit_bot_with_a_wrong_token_exits_with_the_refusal(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            live.token(BOT)
            proc = live.spawn("kit_bot", BOT, token="not-my-token")
            assert await live.wait_exit(proc, 15) not in (None, 0)
            assert f"{BOT}: UNAUTHENTICATED: wrong token for bot '{BOT}'" in live.log(BOT)
            assert "Traceback" not in live.log(BOT)
            assert live.lobby.connected() == {}

    run(main())


def test_a_kit_bot_with_an_unknown_name_exits_with_the_refusal(live: Arena) -> None:
    async def main() -> None:
        async with live.serving():
            proc = live.spawn("kit_bot", "unregistered", token="anything")
            assert await live.wait_exit(proc, 15) not in (None, 0)
            log = live.log("unregistered")
            assert "PERMISSION_DENIED: no bot named 'unregistered' is registered here" in log

    run(main())


def test_a_kit_bot_over_the_session_limit_exits_with_the_refusal(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(max_sessions_per_bot=2):
            proc = live.spawn("kit_bot", BOT, sessions=3)
            refusal = f"{BOT}: RESOURCE_EXHAUSTED: bot '{BOT}' already has 2 sessions open"
            assert await until(lambda: refusal in live.log(BOT), 15), live.log(BOT)
            # Its sessions race: the third can be refused before the second's Hello is in.
            assert await until(lambda: live.lobby.connected() == {BOT: 2}, 15)
            # The two sessions it has play on until Goodbye; then it exits, not with 0.
            await live.referee.stop()
            assert await live.wait_exit(proc, 10) not in (None, 0)

    run(main())


def test_a_kit_bot_still_thinking_at_shutdown_exits_cleanly(live: Arena) -> None:
    """The referee ends the stream while the bot thinks; its late write must not crash it."""

    async def main() -> None:
        async with live.serving(goodbye_grace=0.2):
            proc = live.spawn("kit_bot", BOT, BOT_MODE="slow", BOT_SLEEP=1.0)
            await live.wait_connected([BOT])
            [session] = await live.borrow([BOT])
            rid = next_request_id()
            answer = await session.ask(opening_request(rid), rid, 0.3)
            assert answer.fault is not None and answer.fault.kind is FaultKind.TIMEOUT
            await live.referee.stop()  # Goodbye, 0.2 s of grace, then the stream ends
            assert await live.wait_exit(proc, 10) == 0
            assert "Traceback" not in live.log(BOT)

    run(main())


def test_a_kit_bot_cut_off_without_goodbye_says_so_and_exits_non_zero(live: Arena) -> None:
    """An ended stream is not a finished night: the arena must see the difference."""

    async def main() -> None:
        async with live.serving():
            proc = live.spawn("kit_bot", BOT)
            await live.wait_connected([BOT])
            [session] = await live.borrow([BOT])
            session.close("cut off by the test")  # the call ends, with no Goodbye sent
            assert await live.wait_exit(proc, 10) not in (None, 0)
            assert "without a Goodbye" in live.log(BOT), live.log(BOT)
            assert "Traceback" not in live.log(BOT)

    run(main())


def opening_request(request_id: int) -> bytes:
    """A real request: seat 0 opens the first round of a two-player game."""
    state = engine.new_game(engine.Ruleset(), 2, 0)
    state = engine.deal(state, [(1, 2, 3, 4, 5), (6, 6, 6, 6, 6)])
    return wire.encode_request(
        engine.observe(state, 0),
        request_id=request_id,
        offer=False,
        game_id="thinking",
        players=[BOT, "other"],
        ruleset=wire.ruleset_to_proto(state.ruleset),
        news=(),
        time_left_ms=300,
    )
