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
import subprocess
import sys
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
from arena.kit.errors import KitError, NoRefereeError, RefusedError, SessionLostError
from arena.protocol.wire import PASS, Answer, Pass
from engine import Observation

__all__ = [
    "PASS",
    "Answer",
    "Connection",
    "Handler",
    "KitError",
    "NoRefereeError",
    "Observation",
    "Pass",
    "Policy",
    "PolicyHandler",
    "RefusedError",
    "SessionLostError",
    "connection_from_env",
    "run",
    "run_handler",
    "serve",
    "serve_sessions",
]


def connection_from_env(
    name: str | None = None, argv: Sequence[str] | None = None, bot_version: str = ""
) -> Connection:
    """Where to connect and as whom: flags first, then the environment, then `name`."""
    parser = argparse.ArgumentParser(description="A Perudo Arena bot.")
    parser.add_argument("--address", default=os.environ.get("PERUDO_ADDRESS"))
    parser.add_argument("--name", default=os.environ.get("PERUDO_BOT_NAME", name))
    parser.add_argument("--token", default=os.environ.get("PERUDO_TOKEN"))
    parser.add_argument("--sessions", type=int, default=int(os.environ.get("PERUDO_SESSIONS", "1")))
    parser.add_argument(
        "--tls", action="store_true", default=os.environ.get("PERUDO_TLS", "") not in {"", "0"}
    )
    parser.add_argument("--ca-file", default=os.environ.get("PERUDO_CA_FILE"))
    args, _ = parser.parse_known_args(argv)  # the bot may have flags of its own
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
    if os.environ.get(_CHILD):
        args.sessions = 1
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

    Each session runs in a process of its own (this one and copies of it), so
    a policy that thinks hard in one game never makes another game wait: one
    Python process runs one policy call at a time.
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
    _die_with_starter()
    copies = _start_copies(conn)
    code = 0
    try:
        asyncio.run(serve_sessions(dataclasses.replace(conn, sessions=1), make_handler))
    except (RefusedError, ConnectionError) as error:
        print(f"{conn.name}: {error}", file=sys.stderr)
        code = 1
    except KeyboardInterrupt:
        code = 130
    for copy in copies:
        code = max(code, min(copy.wait(), 1))
    raise SystemExit(code)


_CHILD = "PERUDO_KIT_SESSION_COPY"


_PR_SET_PDEATHSIG = 1


def _ask_kill_on_parent_death() -> None:
    """prctl(PR_SET_PDEATHSIG, SIGKILL). The kit runs in the bot, apart from the arena's
    launcher, so it asks Linux itself; elsewhere the copy notices its closed stream instead."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _die_with_starter() -> None:
    """A session copy dies with the process that started it, even one killed outright.

    Otherwise a copy whose first process was killed plays on alone until its
    stream times out, long after the arena is gone.
    """
    starter = os.environ.get(_CHILD, "")
    if not starter.isdigit():
        return
    _ask_kill_on_parent_death()
    if os.getppid() != int(starter):  # it died before the signal was asked for
        raise SystemExit(1)


def _start_copies(conn: Connection) -> list[subprocess.Popen[bytes]]:
    """Copies of this bot's process for sessions 2..n, each told to open one session."""
    if conn.sessions <= 1:
        return []
    env = dict(
        os.environ,
        PERUDO_ADDRESS=conn.address,
        PERUDO_BOT_NAME=conn.name,
        PERUDO_TOKEN=conn.token,
        **{_CHILD: str(os.getpid())},
    )
    command = [sys.executable, *sys.orig_argv[1:]]
    return [subprocess.Popen(command, env=env) for _ in range(conn.sessions - 1)]
