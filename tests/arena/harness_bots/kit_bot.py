"""A bot written with the kit (`arena.kit.run`), misbehaving as BOT_MODE asks.

BOT_MODE:
  play     play `strategy.act` (the default)
  slow     sleep BOT_SLEEP seconds before every answer
  timeout  sleep BOT_SLEEP seconds before answering request number BOT_AT
  illegal  answer request number BOT_AT with a bid the rules refuse
  crash    die abruptly (os._exit(1)) on request number BOT_AT
  busy     compute (spin on a CPU) for BOT_SLEEP seconds before answering request BOT_AT
Requests are counted from 1 in each process (the kit runs one session per
process). Every other request is answered with `strategy.act`.
"""

from __future__ import annotations

import itertools
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bot_settings
import strategy

from arena.kit import Answer, run
from engine import Observation

bot_settings.load(__file__)

MODE = os.environ.get("BOT_MODE", "play")
AT = int(os.environ.get("BOT_AT", "1"))
SLEEP = float(os.environ.get("BOT_SLEEP", "0"))
_numbers = itertools.count(1)


def act(obs: Observation) -> Answer:
    asked = next(_numbers)
    if MODE == "slow" or (asked == AT and MODE == "timeout"):
        time.sleep(SLEEP)
    elif asked == AT and MODE == "illegal":
        return strategy.illegal(obs)
    elif asked == AT and MODE == "busy":
        until = time.monotonic() + SLEEP
        while time.monotonic() < until:
            pass
    elif asked == AT and MODE == "crash":
        sys.stdout.flush()
        os._exit(1)
    return strategy.act(obs)


if __name__ == "__main__":
    run(act)
