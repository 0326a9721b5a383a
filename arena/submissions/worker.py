"""A submission built and checked in a process of its own, at a lower priority than play.

    python -m arena.submissions.worker --bot DIR --build-log FILE --check-log FILE \\
        --parent PID [--memory-mb N --cpu-s N --build-timeout S --build-network MODE \\
        --move-time S --connect-timeout S]

A check runs a referee and opponents of its own and a build drains a
compiler's output: in the league server's own event loop they would take
time from the games in play. So each submission is built and checked here,
in a child process made nicer (`os.nice`) than the server, whose builds and
bots are nicer still. It dies with the server (the parent-death signal), and
its builds and bots die with it (theirs). It says what it does on its standard
output, one JSON line an event (`arena.submissions.report`): the build's output
as it is written, each check as it is made, and last, whether the bot passed.

The sandbox is required: a stranger's build and bot run nowhere else.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import os
import shutil
import signal
import sys
import time
from pathlib import Path

from arena.bots.botfiles import read_regular
from arena.bots.builds.build import run_build
from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.cgroups import CgroupRoot
from arena.bots.isolation.limits import Confinement, ResourceLimits
from arena.bots.isolation.sandbox import SandboxError, SandboxMode, decide
from arena.bots.manifest import MANIFEST, MANIFEST_BYTES, ManifestError, load_entry
from arena.bots.toolchains import refusal
from arena.checkbot.check import check_bot
from arena.checkbot.verdict import Check
from arena.submissions.report import End, Event, Line, encode, first_failure

NICENESS = 10
TAIL_EVERY = 0.2
"""Seconds between two looks at the build's log, for its new lines."""
_PR_SET_PDEATHSIG = 1


def emit(event: Event) -> None:
    sys.stdout.write(encode(event) + "\n")
    sys.stdout.flush()


async def _tail(log: Path, stop: asyncio.Event) -> None:
    """Pass on each line the build writes to its log, as it comes (the log is capped)."""
    at = 0
    pending = b""
    while True:
        stopping = stop.is_set()
        with contextlib.suppress(OSError), log.open("rb") as opened:
            opened.seek(at)
            data = opened.read()
            at += len(data)
            *lines, pending = (pending + data).split(b"\n")
            for line in lines:
                emit(Line("build", line.decode(errors="replace")))
        if stopping:
            if pending:
                emit(Line("build", pending.decode(errors="replace")))
            return
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(TAIL_EVERY):
                await stop.wait()


async def _build(args: argparse.Namespace, limits: ResourceLimits) -> str | None:
    """Build the bot, its output passed on as it comes; why it failed, or None."""
    spec = load_entry(args.bot)
    assert spec is not None
    sandbox = decide(SandboxMode.REQUIRE, BuildNetwork(args.build_network))
    if spec.build is None:
        return None
    cgroups = CgroupRoot.find()
    confinement = Confinement(sandbox, cgroups, strict=True)
    emit(Line("note", sandbox.builds.describe()))
    emit(
        Line(
            "note", f"building: {' '.join(spec.build)} (up to {limits.build_time_for(spec):.0f} s)"
        )
    )
    stop = asyncio.Event()
    tail = asyncio.ensure_future(_tail(args.build_log, stop))
    began = time.monotonic()
    try:
        failure = await run_build(spec, {}, args.build_log, limits, confinement)
    finally:
        stop.set()
        await tail
        if cgroups is not None:
            cgroups.remove()
    if failure is None:
        emit(Line("note", f"built in {time.monotonic() - began:.1f} s"))
    return failure


def _changed(bot: Path, taken_in: bytes | None) -> str | None:
    """Why the bot's manifest is no longer the one it was taken in with, or None. The
    manifest is read once, at intake, and plays as it was checked: a build that rewrites
    it (a name, a command, a limit) is refused, never believed."""
    try:
        now = read_regular(bot / MANIFEST, MANIFEST_BYTES)
    except ManifestError:
        now = None  # made a link, a pipe, a folder: changed all the same
    if now == taken_in:
        return None
    return (
        f"its build changed {MANIFEST}: a bot plays by the {MANIFEST} it was sent with, so a "
        f"build may not write it (make any file the build needs under another name)"
    )


async def work(args: argparse.Namespace) -> End:
    limits = ResourceLimits(
        memory_mb=args.memory_mb, cpu_s=args.cpu_s, build_timeout=args.build_timeout
    )
    try:
        taken_in = read_regular(args.bot / MANIFEST, MANIFEST_BYTES)
        spec = load_entry(args.bot)
        assert spec is not None
        missing = spec.missing_programs(strict=True)
        if missing:
            return End(False, refusal(missing))
        failure = await _build(args, limits)
    except (ManifestError, SandboxError) as error:
        return End(False, str(error))
    if failure is not None:
        return End(False, failure)  # "the build failed with exit code 2: ...", and the like
    changed = _changed(args.bot, taken_in)
    if changed is not None:
        return End(False, changed)
    checks: list[Check] = []

    def say(check: Check) -> None:
        if check.name == "build" and check.passed:
            return  # built just above: the check found it so and did not build it again
        checks.append(check)
        emit(check)

    run = await check_bot(
        args.bot,
        say,
        move_time=args.move_time,
        connect_timeout=args.connect_timeout,
        limits=limits,
        sandbox=SandboxMode.REQUIRE,
        build_network=BuildNetwork(args.build_network),
        strict=True,
    )
    if run.log is not None:
        with contextlib.suppress(OSError):
            shutil.copyfile(run.log, args.check_log)
        shutil.rmtree(run.log.parent, ignore_errors=True)
    if not run.passed:
        return End(False, first_failure(checks))
    changed = _changed(args.bot, taken_in)  # the check ran its games from the same tree
    return End(True) if changed is None else End(False, changed)


def _die_with(parent: int) -> bool:
    """Ask to be killed when the server dies; False if it is already gone."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    return os.getppid() == parent


def main(argv: list[str] | None = None) -> int:
    defaults = ResourceLimits()
    parser = argparse.ArgumentParser(prog="python -m arena.submissions.worker")
    parser.add_argument("--bot", type=Path, required=True)
    parser.add_argument("--build-log", type=Path, required=True)
    parser.add_argument("--check-log", type=Path, required=True)
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--memory-mb", type=int, default=defaults.memory_mb)
    parser.add_argument("--cpu-s", type=int, default=defaults.cpu_s)
    parser.add_argument("--build-timeout", type=float, default=defaults.build_timeout)
    parser.add_argument("--build-network", default=BuildNetwork.ISOLATED.value)
    parser.add_argument("--move-time", type=float, default=1.0)
    parser.add_argument("--connect-timeout", type=float, default=20.0)
    args = parser.parse_args(argv)
    if not _die_with(args.parent):
        return 125
    os.nice(NICENESS)
    emit(asyncio.run(work(args)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
