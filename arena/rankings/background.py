"""The bootstrap away from the event loop, given up when the run is asked to stop.

The batch fit solves one system of the field's size for every copy, so its
cost grows with the cube of the field: a few milliseconds for a club night,
about a minute for 500 bots. Run on the referee's event loop it would hold
every signal handler, a Ctrl-C included, for that long. A small field's is
run in a thread; a large one's in a process of its own, which can be killed
the moment the run is stopped or its time budget is spent: the leaderboard
then goes out with TrueSkill's order alone, and says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import multiprocessing
import signal
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Protocol

from arena.rankings.bootstrap import Confidence, confidence
from arena.rankings.groups import Finish

_PR_SET_PDEATHSIG = 1

PROCESS_FROM = 48
"""Bots from which the bootstrap gets a process of its own: below it, it takes well under
a second, less than starting the process would."""


def budget_for(bots: int) -> float:
    """Seconds the bootstrap may take: 2 minutes, and a fifth of a second more for each bot
    (500 bots measured about a minute on a quiet machine)."""
    return 120.0 + 0.2 * bots


@dataclass(frozen=True, slots=True)
class Reckoned:
    """The bootstrap's answer, or why there is none."""

    sure: Confidence | None
    why_not: str = ""


class Reckoning(Protocol):
    """A bootstrap to run in a process of its own: picklable, so that it is sent there, and
    called there (it may gather its games there too, out of the caller's memory)."""

    def __call__(self) -> Confidence | None: ...


@dataclass(frozen=True, slots=True)
class _Given:
    """The bootstrap of games the caller already holds."""

    finishes: Sequence[Finish]
    names: Sequence[str]
    seed: int

    def __call__(self) -> Confidence:
        return confidence(self.finishes, self.names, seed=self.seed)


async def reckon(
    finishes: Sequence[Finish],
    names: Sequence[str],
    seed: int,
    give_up: asyncio.Event,
) -> Reckoned:
    """The confidence of `finishes`, or none if `give_up` is set (a stop) or the budget ends."""
    if len(names) < PROCESS_FROM:
        return Reckoned(await asyncio.to_thread(confidence, finishes, names, seed=seed))
    return await reckon_apart(_Given(list(finishes), list(names), seed), len(names), give_up)


async def reckon_apart(job: Reckoning, bots: int, give_up: asyncio.Event) -> Reckoned:
    """`job` in a process of its own, given `budget_for(bots)`; none if `give_up` is set (a
    stop), the budget ends, or the job has no answer."""
    if give_up.is_set():
        return Reckoned(None, "not computed: the run was stopped")
    budget = budget_for(bots)
    context = multiprocessing.get_context("spawn")  # never fork a process that runs grpc
    receiver, sender = context.Pipe(duplex=False)
    worker = context.Process(target=_work, args=(sender, job), daemon=True)
    worker.start()
    sender.close()
    answer = asyncio.ensure_future(asyncio.to_thread(_receive, receiver))
    stop = asyncio.ensure_future(give_up.wait())
    try:
        done, _ = await asyncio.wait({answer, stop}, timeout=budget, return_when="FIRST_COMPLETED")
    finally:
        stop.cancel()
        worker.kill()  # its end of the pipe closes, so the receiving thread returns too
        await asyncio.to_thread(worker.join)
        with contextlib.suppress(EOFError, OSError):
            await answer
        receiver.close()
    result = answer.result() if answer in done else None
    if isinstance(result, Confidence):
        return Reckoned(result)
    if stop in done:
        return Reckoned(None, "not computed: the run was stopped")
    if answer in done:
        return Reckoned(None, "not computed: its worker process ended without an answer")
    return Reckoned(None, f"not computed: it took longer than its {budget:.0f} s")


def _work(out: Connection, job: Reckoning) -> None:
    # Killed with the arena, even one killed outright: a minute of work for nobody otherwise.
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    out.send(job())
    out.close()


def _receive(receiver: Connection) -> object:
    try:
        return receiver.recv()
    except (EOFError, OSError):
        return None
