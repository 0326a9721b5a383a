"""Hostile bots, run for real: none of them can freeze a game, hide its fault, or pass as another.

Each game seats the hostile bot at seat 0 (which opens the first round) with
two well-behaved kit bots, who must finish their game untouched.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path

import pytest
from referee_harness import Arena, bot_folder, replay, run, until
from tournament_harness import Quiet

import arena.referee.session.session
from arena.protocol.faults import FaultKind
from arena.referee.match import GameRecord
from arena.tournament.config import TournamentConfig
from arena.tournament.tournament import Tournament
from engine import Opener, Ruleset

ROGUE = "rogue"
GOOD = ("steady", "sure")
SEAT0 = Ruleset(opener=Opener.SEAT0)
MOVE_TIME = 0.5
ROGUE_SCRIPT = ("stall", "stall_bot.py")


def check_rogue_faulted(record: GameRecord, kind: FaultKind, rogue: str = ROGUE) -> str:
    """The rogue's one fault is `kind`; the others finish the game with none. Returns its detail."""
    assert [(f.bot, f.fault.kind) for f in record.faults] == [(rogue, kind)], record.faults
    assert sorted(record.order) == [0, 1, 2]
    assert record.order[-1] == 0
    assert replay(record).order == record.order
    return record.faults[0].fault.detail


def test_a_bot_that_shuts_its_flow_control_window_is_faulted_for_a_stall(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME, goodbye_grace=0.5):
            live.spawn("stall_bot", ROGUE)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            started = time.monotonic()
            record = await asyncio.wait_for(live.play((ROGUE, *GOOD), SEAT0), 20)
            detail = check_rogue_faulted(record, FaultKind.STALL)
            assert "accepted no data" in detail
            # The stall cost the game one time limit, not more.
            assert time.monotonic() - started < 10
            # Its session is closed: never asked again, gone from the lobby.
            assert await until(lambda: ROGUE not in live.lobby.connected(), 5)
            stop = time.monotonic()
            await asyncio.wait_for(live.referee.stop(), 10)
            assert time.monotonic() - stop < 5

    run(main())


def test_a_stop_ends_a_game_stuck_writing_to_a_stalled_bot(live: Arena) -> None:
    """With a time limit too long to wait out, the stop itself must end the stuck write."""

    async def main() -> None:
        async with live.serving(move_time=60.0, goodbye_grace=0.5):
            live.spawn("stall_bot", ROGUE)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            game = asyncio.ensure_future(live.play((ROGUE, *GOOD), SEAT0))
            # The first request is stuck: the bot got only what fits in its 64-byte window.
            assert await until(lambda: "received 64 bytes" in live.log(ROGUE), 10), live.log(ROGUE)
            await asyncio.sleep(0.2)
            assert not game.done()
            stop = time.monotonic()
            await asyncio.wait_for(live.referee.stop(), 10)
            record = await asyncio.wait_for(game, 10)
            assert time.monotonic() - stop < 5
            assert record.faults[0].bot == ROGUE
            assert record.faults[0].fault.kind is FaultKind.STALL
            assert sorted(record.order) == [0, 1, 2]

    run(main())


def test_a_reply_over_the_size_limit_is_a_malformed_message(live: Arena) -> None:
    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            live.spawn("raw_bot", ROGUE, BOT_MODE="oversize", BOT_AT=2, BOT_SIZE=24_000)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            record = await live.play((ROGUE, *GOOD), SEAT0)
            detail = check_rogue_faulted(record, FaultKind.MALFORMED_MESSAGE)
            assert re.search(r"larger than max \(240\d\d vs. 16384\)", detail), detail
            assert await until(lambda: "status" in live.log(ROGUE), 10), live.log(ROGUE)
            assert "status RESOURCE_EXHAUSTED" in live.log(ROGUE)

    run(main())


def test_a_reply_over_grpcs_own_limit_is_refused_by_grpc_unread(live: Arena) -> None:
    """Past twice the referee's limit grpc refuses the message itself, before it is read
    whole: the bot is told why, and the referee sees its stream end."""

    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            live.spawn("raw_bot", ROGUE, BOT_MODE="oversize", BOT_AT=2)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            record = await live.play((ROGUE, *GOOD), SEAT0)
            # As for any stream that ends: a crash if the bot then exits in error (this one does).
            kind = (
                FaultKind.CRASH
                if "exited with code" in record.faults[0].fault.detail
                else FaultKind.DISCONNECT
            )
            assert "the bot closed the stream" in check_rogue_faulted(record, kind)
            assert await until(lambda: "status" in live.log(ROGUE), 10), live.log(ROGUE)
            status = live.log(ROGUE).splitlines()[-1]
            assert re.fullmatch(
                r"status RESOURCE_EXHAUSTED: .*Received message larger than max "
                r"\(10485\d\d vs\. 32768\)",
                status,
            ), status

    run(main())


def test_a_bot_answering_every_request_twice_is_expelled_for_malformed_messages(
    live: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(arena.referee.session.session, "MAX_STRAY_MESSAGES", 2)

    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            live.spawn("raw_bot", ROGUE, BOT_MODE="twice", BOT_AT=1)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            faults = []
            for game in range(4):  # until its session is closed
                record = await live.play((ROGUE, *GOOD), SEAT0, game_id=f"twice-{game}")
                faults.extend(record.faults)
                if faults:
                    break
            assert faults, "answering twice went unnoticed"
            [fault] = faults
            assert (fault.bot, fault.fault.kind) == (ROGUE, FaultKind.MALFORMED_MESSAGE)
            assert fault.fault.detail.startswith("too many unexpected messages")
            assert await until(lambda: "status" in live.log(ROGUE), 10), live.log(ROGUE)
            assert "status INVALID_ARGUMENT" in live.log(ROGUE)

    run(main())


def test_a_flood_of_unprompted_replies_is_malformed_and_ends_with_invalid_argument(
    live: Arena,
) -> None:
    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME, goodbye_grace=5.0):
            live.spawn("raw_bot", ROGUE, BOT_MODE="flood", BOT_AT=2, BOT_FLOOD=500)
            await live.launch("kit_bot", GOOD)
            await live.wait_connected([ROGUE])
            record = await live.play((ROGUE, *GOOD), SEAT0)
            detail = check_rogue_faulted(record, FaultKind.MALFORMED_MESSAGE)
            assert detail.startswith("too many unexpected messages")
            assert await until(lambda: "status" in live.log(ROGUE), 10), live.log(ROGUE)
            assert "status INVALID_ARGUMENT" in live.log(ROGUE), live.log(ROGUE)

    run(main())


def test_a_half_close_then_a_clean_exit_is_never_a_crash(live: Arena) -> None:
    """Exit 0 straight after hanging up is a disconnect, every time (was a crash 1-2 in 3)."""

    async def main() -> None:
        async with live.serving(move_time=MOVE_TIME):
            await live.launch("kit_bot", GOOD)
            for attempt in range(5):
                rogue = f"{ROGUE}{attempt}"
                proc = live.spawn("raw_bot", rogue, BOT_MODE="halfclose", BOT_AT=1, BOT_LINGER=0)
                await live.wait_connected([rogue])
                record = await live.play((rogue, *GOOD), SEAT0, game_id=f"half-close-{attempt}")
                detail = check_rogue_faulted(record, FaultKind.DISCONNECT, rogue)
                assert "closed the stream" in detail
                assert await live.wait_exit(proc) == 0

    run(main())


class _Notes(Quiet):
    """An observer that keeps the notes it is told."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        self.notes.append(text)


def test_the_first_ctrl_c_ends_a_game_stuck_on_a_stalled_bot(tmp_path: Path) -> None:
    """A move time of a minute: the stop may not wait it out."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name, script in (("alpha", "kit_bot.py"), ("bravo", "kit_bot.py"), ROGUE_SCRIPT):
        bot_folder(bots, name, script, {})
    config = TournamentConfig(
        bots_dir=bots, out=tmp_path / "out", games=6, jobs=1, move_time=60.0, name="night"
    )
    log = tmp_path / "out" / "night" / "logs" / "stall.log"

    async def main() -> None:
        tournament = Tournament(config, _Notes())
        running = asyncio.ensure_future(tournament.run())
        assert await until(lambda: "received 64 bytes" in _read(log) or running.done(), 60)
        assert not running.done(), running.result()
        stop = time.monotonic()
        tournament.request_stop()  # what the first Ctrl-C and `arena admin stop` do
        summary = await asyncio.wait_for(running, 20)
        assert time.monotonic() - stop < 10
        assert summary.status == "interrupted"
        [line] = [json.loads(x) for x in (summary.folder / "games.jsonl").read_text().splitlines()]
        assert [(f["bot"], f["kind"]) for f in line["faults"]] == [("stall", "stall")]

    run(main(), timeout=120)


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""
