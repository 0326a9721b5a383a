"""A hostile bot that plays, but first opens BOT_CONNECTIONS idle connections to the referee.

The connections (plain TCP, never a byte of HTTP/2) are opened when the bot is
first asked to act, so every bot has connected by then, and are held open
until the bot exits. It plays `strategy.act`, sleeping BOT_SLEEP seconds
before each answer. With BOT_ADDRESS_FILE set, it writes the referee's address
there when first asked, so that a helper with more descriptors than the bot
may have can flood the referee too.
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bot_settings
import strategy

from arena.kit import Answer, run
from engine import Observation

bot_settings.load(__file__)

CONNECTIONS = int(os.environ.get("BOT_CONNECTIONS", "1200"))
SLEEP = float(os.environ.get("BOT_SLEEP", "0"))
ADDRESS_FILE = os.environ.get("BOT_ADDRESS_FILE")
_held: list[socket.socket] = []


def _connect(address: str) -> socket.socket:
    """One idle connection to the referee, over TCP or (sandboxed) its Unix socket."""
    if not address.startswith("unix:"):
        host, _, port = address.rpartition(":")
        return socket.create_connection((host, int(port)), timeout=2)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(2)
    sock.connect(address.removeprefix("unix:"))
    return sock


def act(obs: Observation) -> Answer:
    time.sleep(SLEEP)
    if ADDRESS_FILE and not os.path.exists(ADDRESS_FILE):
        Path(ADDRESS_FILE).write_text(os.environ["PERUDO_ADDRESS"])
    if CONNECTIONS and not _held:
        for _ in range(CONNECTIONS):
            try:
                _held.append(_connect(os.environ["PERUDO_ADDRESS"]))
            except OSError as error:
                print(f"connection {len(_held) + 1} failed: {error}", file=sys.stderr, flush=True)
                break
        print(f"holding {len(_held)} idle connections", file=sys.stderr, flush=True)
    return strategy.act(obs)


if __name__ == "__main__":
    run(act)
