"""A kit bot that takes BOT_LOAD_S seconds to load (a model, say) before it calls `run`.

Each time the script loads it appends its pid to the file BOT_LOADS names, if
any, so a test can tell how many times the bot was loaded.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bot_settings
import strategy

from arena.kit import run

bot_settings.load(__file__)

if os.environ.get("BOT_LOADS"):
    with open(os.environ["BOT_LOADS"], "a") as loads:
        loads.write(f"{os.getpid()}\n")
time.sleep(float(os.environ.get("BOT_LOAD_S", "0")))

if __name__ == "__main__":
    run(strategy.act)
