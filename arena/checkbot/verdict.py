"""What one check says: passed or failed, in words, with a warning or the bot's last words.

Both the probes (`probing`) and the whole games (`games`) come to checks, and
the check itself (`check`) gathers them.
"""

from __future__ import annotations

from dataclasses import dataclass

NEAR_LIMIT = 0.9
"""A decision that takes this share of its limit passes, with a warning: on a busier
machine, or a harder position, it would be a timeout."""


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    passed: bool
    detail: str = ""
    warning: str = ""
    """For a check passed: what the author should still know (a decision near its limit)."""
    log_tail: tuple[str, ...] = ()
    """For a failure: the last lines of the bot's log (or its build's) when it was found."""
    final: bool = False
    """A failure whose words say all, and that every check after it would only repeat (a
    debug line on a bridged program's stdout): the check stops there, with no log tail."""


SLOW_FIRST = 0.5
"""A first decision past this share of the move time is warned of: a JIT's warm-up."""


def slow_first(ms: float, move_time: float) -> str:
    """The warning for a bot's first decision that took `ms`, past half the move time, or
    "": a JVM or .NET bot runs its first decisions before its JIT has compiled them, and
    a night's first requests are the ones that time out."""
    limit_ms = move_time * 1000
    if ms < SLOW_FIRST * limit_ms:
        return ""
    return (
        f"its first decision took {ms:.0f} ms, over half the {limit_ms:.0f} ms limit: a JVM "
        "or .NET bot runs its first decisions before its JIT compiles them; warm it up before "
        "it dials the referee (writing-a-bot, 3.1: JVM warm-up)"
    )


def near_limit(ms: float, move_time: float) -> str:
    """The warning for a decision of `ms` that came within 10% of the move time (or, with
    timeouts off, past it), or ""."""
    limit_ms = move_time * 1000
    if ms < NEAR_LIMIT * limit_ms:
        return ""
    if ms > limit_ms:  # only with timeouts off
        return (
            f"a decision took {ms:.0f} ms, over the {limit_ms:.0f} ms limit: "
            "a timeout, were they on"
        )
    return (
        f"a decision took {ms:.0f} ms, within 10% of the {limit_ms:.0f} ms limit: "
        "on a busier machine it would time out"
    )
