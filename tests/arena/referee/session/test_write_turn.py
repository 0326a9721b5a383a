"""One write at a time on a session's stream: a second writer waits its turn, whole."""

from __future__ import annotations

import asyncio

from arena.protocol.messages import referee as pb
from arena.referee.session.session import Session
from arena.referee.session.write_turn import WriteTurn


class _Stream:
    """A stream whose writes finish only when the test lets them; it logs each start and end."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.gates: dict[str, asyncio.Event] = {}

    async def write(self, message: bytes | pb.RefereeMessage) -> None:
        name = message.decode() if isinstance(message, bytes) else message.WhichOneof("kind")
        assert name is not None
        self.log.append(f"start {name}")
        gate = self.gates.setdefault(name, asyncio.Event())
        await gate.wait()
        self.log.append(f"end {name}")

    def peer(self) -> str:
        return "ipv4:127.0.0.1:1"


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_writers_take_turns_and_one_cancelled_while_waiting_gives_its_turn_up() -> None:
    async def main() -> None:
        turn, stream = WriteTurn(asyncio.get_running_loop()), _Stream()
        first = asyncio.ensure_future(turn.write(stream, b"a"))
        await _settle()
        second = asyncio.ensure_future(turn.write(stream, b"b"))
        third = asyncio.ensure_future(turn.write(stream, b"c"))
        await _settle()
        assert stream.log == ["start a"]  # the others wait while `a` is being written
        second.cancel()
        await _settle()
        stream.gates["a"].set()
        await first
        await _settle()
        assert stream.log == ["start a", "end a", "start c"]
        stream.gates["c"] = stream.gates.get("c", asyncio.Event())
        stream.gates["c"].set()
        await third
        assert second.cancelled() and not turn.busy

    asyncio.run(main())


def test_a_goodbye_during_a_request_waits_for_the_request_to_be_written() -> None:
    async def main() -> None:
        stream = _Stream()
        session = Session("bot", "s1", stream)  # type: ignore[arg-type]  # a stand-in stream
        asking = asyncio.ensure_future(session.ask(b"request", 1, 10.0))
        await _settle()
        goodbye = pb.RefereeMessage(goodbye=pb.Goodbye(reason="done"))
        sending = asyncio.ensure_future(session.send(goodbye))
        await _settle()
        assert stream.log == ["start request"]
        stream.gates["request"].set()
        await _settle()
        stream.gates.setdefault("goodbye", asyncio.Event()).set()
        assert await sending
        assert stream.log == ["start request", "end request", "start goodbye", "end goodbye"]
        session.close("done")
        reply = await asking
        assert reply.fault is not None  # closed before any reply came

    asyncio.run(main())
