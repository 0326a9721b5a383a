"""A deterministic kit bot for the league server's tests, with a few misbehaviours on demand.

It dials the referee as every kit bot does (PERUDO_ADDRESS, PERUDO_BOT_NAME,
PERUDO_TOKEN, PERUDO_SESSIONS, PERUDO_TLS, PERUDO_CA_FILE). Test knobs:

    PERUDO_TEST_DELAY            seconds to think before each decision
    PERUDO_TEST_QUIT_AFTER       leave (exit at once) after this many games
    PERUDO_TEST_HANG_FILE        on the first request, create this file and hang there
    PERUDO_TEST_CONNECT_TIMEOUT  seconds to wait for the referee (the kit's default is 15)
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import sys
import time
from pathlib import Path

from arena.kit import PASS, Answer, RefusedError, connection_from_env, serve
from arena.protocol.messages import referee as pb
from engine import DUDO, Bid, Observation

DELAY = float(os.environ.get("PERUDO_TEST_DELAY", "0"))
QUIT_AFTER = int(os.environ.get("PERUDO_TEST_QUIT_AFTER", "0"))
HANG_FILE = os.environ.get("PERUDO_TEST_HANG_FILE", "")
CONNECT_TIMEOUT = os.environ.get("PERUDO_TEST_CONNECT_TIMEOUT", "")

games_over = itertools.count(1)


def act(obs: Observation) -> Answer:
    if HANG_FILE:
        Path(HANG_FILE).write_text(f"{os.getpid()}\n")
        while True:  # mid-game, waiting to be killed
            time.sleep(60)
    if DELAY:
        time.sleep(DELAY)
    if not obs.my_turn:
        return PASS
    others = obs.dice_in_play - len(obs.my_dice)
    if obs.standing is not None and obs.can_dudo:
        face = obs.standing.face
        mine = sum(1 for d in obs.my_dice if d == face or (d == 1 and not obs.palifico))
        if obs.standing.count > mine + others / 3:
            return DUDO
    held = sorted(range(1, 7), key=lambda f: (obs.my_dice.count(f), f), reverse=True)
    for face in held:
        bid = Bid(obs.floors[face - 1], face)
        if obs.may_bid(bid):
            return bid
    return DUDO


def game_over(message: pb.GameOver) -> None:
    played = next(games_over)
    if QUIT_AFTER and played >= QUIT_AFTER:
        print(f"leaving after {played} games", file=sys.stderr, flush=True)
        os._exit(0)


def main() -> int:
    conn = connection_from_env("steady")
    if CONNECT_TIMEOUT:
        conn = dataclasses.replace(conn, connect_timeout=float(CONNECT_TIMEOUT))
    try:
        asyncio.run(serve(conn, act, game_over))
    except (RefusedError, ConnectionError) as error:
        print(f"{conn.name}: {error}", file=sys.stderr, flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
