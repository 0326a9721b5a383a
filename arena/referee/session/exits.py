"""How the referee tells a crash from a disconnect: the bot process's exit status."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Awaitable, Callable

ExitProbe = Callable[[float], Awaitable[int | None]]
"""The bot process's exit status if it ends within the given seconds, else None."""


def exit_probe(process: asyncio.subprocess.Process) -> ExitProbe:
    """The `ExitProbe` of a bot process the arena started."""

    async def exit_status(within: float) -> int | None:
        if process.returncode is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(within):
                    await asyncio.shield(process.wait())
        return process.returncode

    return exit_status


_SIGNAL_WORDS = {
    signal.SIGKILL: "killed outright: a memory or process limit, the OOM killer, or a stop's end",
    signal.SIGTERM: "asked to stop",
    signal.SIGSEGV: "a crash: it touched memory it does not own",
    signal.SIGABRT: "it aborted itself: a failed assertion, an uncaught C++ exception",
    signal.SIGXCPU: "over its CPU-time limit",
    signal.SIGBUS: "a crash: a bad memory access",
    signal.SIGFPE: "a crash: an arithmetic error such as a division by zero",
    signal.SIGPIPE: "it wrote to a pipe nobody reads",
    signal.SIGINT: "interrupted, as by Ctrl-C",
}

_CODE_WORDS = {
    0: "success",
    1: "an error, as most programs report one; its log says which",
    2: "by convention a mistake on its command line",
    126: "the command was found but could not be executed",
    127: "the command was not found",
}


def describe_signal(number: int) -> str:
    """A signal in words: "SIGTERM (signal 15: asked to stop)"."""
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    words = _SIGNAL_WORDS.get(sig)
    return f"{sig.name} (signal {number}: {words})" if words else f"{sig.name} (signal {number})"


def describe_exit(status: int) -> str:
    """A process's exit status in words, for the bot's author: "killed by SIGTERM (...)".

    asyncio reports death by a signal as minus the signal, and a shell that
    ran the bot reports it as 128 plus the signal (143 for SIGTERM): both are
    named, so that nobody has to know either convention to read a fault.
    """
    if status < 0:
        return f"killed by {describe_signal(-status)}"
    if status in _CODE_WORDS:
        return f"exited with code {status} ({_CODE_WORDS[status]})"
    if 128 < status < 128 + signal.NSIG:
        try:
            name = signal.Signals(status - 128).name
        except ValueError:
            name = f"signal {status - 128}"
        how = f"128 + {status - 128}: killed by {name}, as a shell reports it"
        return f"exited with code {status} ({how})"
    return f"exited with code {status}"
