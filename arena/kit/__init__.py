"""Write a Perudo bot in Python: one function, one call.

    from arena.kit import run, PASS
    from engine import DUDO, Bid

    def act(obs):
        if not obs.my_turn:          # an out-of-turn calza offer
            return PASS
        if obs.can_dudo and ...:
            return DUDO
        face = ...
        return Bid(obs.floors[face - 1], face)

    run(act)

`obs` is the game's view (`engine.Observation`) with `obs.clock` beside it:
the decision's time left and bank, as the referee told them, and
`obs.clock.remaining()`, the seconds left now.

`run` reads the referee's address, the bot's name, its token and how many
sessions to open from the environment the arena sets (PERUDO_ADDRESS,
PERUDO_BOT_NAME, PERUDO_TOKEN, PERUDO_SESSIONS) or from the same flags on
the command line, plays until the referee says goodbye, and exits with 0
(with 1, saying why, when a session was refused or ended without a Goodbye:
the referee went away, or cut it off). For a
league server with TLS, set PERUDO_TLS=1 (or --tls), and PERUDO_CA_FILE
(or --ca-file) to trust a self-signed certificate.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import dataclasses
import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence

from arena.kit.client import (
    Connection,
    GameOverHook,
    Handler,
    Policy,
    PolicyHandler,
    serve,
    serve_sessions,
)
from arena.kit.clock import DecisionClock, TimedObservation
from arena.kit.errors import KitError, NoRefereeError, RefusedError, SessionLostError
from arena.protocol.wire import PASS, Answer, Pass
from engine import Observation

__all__ = [
    "PASS",
    "Answer",
    "Connection",
    "DecisionClock",
    "Handler",
    "KitError",
    "NoRefereeError",
    "Observation",
    "Pass",
    "Policy",
    "PolicyHandler",
    "RefusedError",
    "SessionLostError",
    "TimedObservation",
    "connection_from_env",
    "run",
    "run_handler",
    "serve",
    "serve_sessions",
]


def connection_from_env(
    name: str | None = None, argv: Sequence[str] | None = None, bot_version: str = ""
) -> Connection:
    """Where to connect and as whom: flags first, then the environment, then `name`.

    Only the guide's flags, each spelled out: a typo or an abbreviation
    (`--n zz`) is refused rather than read as something the author did not mean.
    """
    parser = argparse.ArgumentParser(description="A Perudo Arena bot.", allow_abbrev=False)
    parser.add_argument("--address", default=os.environ.get("PERUDO_ADDRESS"))
    parser.add_argument("--name", default=os.environ.get("PERUDO_BOT_NAME", name))
    parser.add_argument("--token", default=os.environ.get("PERUDO_TOKEN"))
    parser.add_argument("--sessions", type=int, default=int(os.environ.get("PERUDO_SESSIONS", "1")))
    parser.add_argument(
        "--tls", action="store_true", default=os.environ.get("PERUDO_TLS", "") not in {"", "0"}
    )
    parser.add_argument("--ca-file", default=os.environ.get("PERUDO_CA_FILE") or None)
    args = parser.parse_args(argv)
    missing = [flag for flag in ("address", "name", "token") if not getattr(args, flag)]
    if missing:
        parser.error(
            "missing "
            + ", ".join(
                f"--{m} (or PERUDO_{'BOT_NAME' if m == 'name' else m.upper()})" for m in missing
            )
        )
    if args.sessions < 1:
        parser.error("--sessions must be at least 1")
    return Connection(
        args.address,
        args.name,
        args.token,
        args.sessions,
        bot_version=bot_version,
        tls=args.tls or bool(args.ca_file),
        ca_file=args.ca_file,
    )


def run(
    policy: Policy,
    *,
    name: str | None = None,
    on_game_over: GameOverHook | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    """Connect `policy` to the referee and play until it says goodbye.

    Each session runs in a process of its own, so a policy that thinks hard in
    one game never makes another game wait (one Python process runs one policy
    call at a time). The others are forked from this one when `run` is called,
    after the bot has loaded: a model that takes a minute to load is loaded
    once, and every session opens at once. The fork comes before any gRPC
    channel exists, which is what makes it safe; where there is no fork
    (Windows), every session is served by this process.
    """
    run_handler(lambda: PolicyHandler(policy, on_game_over), name=name, argv=argv)


def run_handler(
    make_handler: Callable[[], Handler],
    *,
    name: str | None = None,
    argv: Sequence[str] | None = None,
) -> None:
    """`run` for a bot that reads whole requests (the players' names, the time left),
    not only the view a policy gets: `make_handler` makes each session's handler."""
    conn = connection_from_env(name, argv, bot_version=name or "")
    if conn.sessions > 1 and hasattr(os, "fork"):
        raise SystemExit(_forked(conn, make_handler))
    raise SystemExit(_play(conn, make_handler))


def _play(conn: Connection, make_handler: Callable[[], Handler]) -> int:
    """Serve `conn`'s sessions in this process; the exit code, saying why when it is not 0."""
    try:
        asyncio.run(serve_sessions(conn, make_handler))
    except (RefusedError, ConnectionError) as error:
        print(f"{conn.name}: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def _forked(conn: Connection, make_handler: Callable[[], Handler]) -> int:
    """One session here and one in each of `conn.sessions - 1` forked copies of this process."""
    one = dataclasses.replace(conn, sessions=1)
    parent = os.getpid()
    sys.stdout.flush()
    sys.stderr.flush()
    copies = []
    for _ in range(conn.sessions - 1):
        pid = os.fork()
        if pid == 0:  # never returns: the copy must not go on to run the parent's code
            code = 1
            try:
                code = _copy(one, make_handler, parent)
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        copies.append(pid)
    code = _play(one, make_handler)
    try:
        for pid in copies:
            _, status = os.waitpid(pid, 0)
            code = max(code, min(abs(os.waitstatus_to_exitcode(status)), 1))
    except KeyboardInterrupt:  # the copies have it too, and die with this process
        return 130
    return code


def _copy(conn: Connection, make_handler: Callable[[], Handler], parent: int) -> int:
    """A forked copy: it dies with the process that forked it, even one killed outright.

    Otherwise a copy whose first process was killed plays on alone until its
    stream times out, long after the arena is gone.
    """
    _ask_kill_on_parent_death()
    if os.getppid() != parent:  # it died before the signal was asked for
        return 1
    return _play(conn, make_handler)


_PR_SET_PDEATHSIG = 1


def _ask_kill_on_parent_death() -> None:
    """prctl(PR_SET_PDEATHSIG, SIGKILL). The kit runs in the bot, apart from the arena's
    launcher, so it asks Linux itself; elsewhere the copy notices its closed stream instead."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
