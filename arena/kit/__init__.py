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
the command line, plays until the referee says goodbye, and exits. For a
league server with TLS, set PERUDO_TLS=1 (or --tls), and PERUDO_CA_FILE
(or --ca-file) to trust a self-signed certificate.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence

from arena.kit.client import (
    Connection,
    GameOverHook,
    Handler,
    Policy,
    RefusedError,
    serve,
    serve_sessions,
)
from arena.wire import PASS, Answer, Pass
from engine import Observation

__all__ = [
    "PASS",
    "Answer",
    "Connection",
    "Handler",
    "Observation",
    "Pass",
    "Policy",
    "RefusedError",
    "connection_from_env",
    "run",
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
    """Connect `policy` to the referee and play until it says goodbye."""
    conn = connection_from_env(name, argv, bot_version=name or "")
    try:
        asyncio.run(serve(conn, policy, on_game_over))
    except (RefusedError, ConnectionError) as error:
        print(f"{conn.name}: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
