"""Settings for a test bot from `bot.env` beside it.

A bot started by `arena run` gets only the environment the guide lists, so a
test that runs a bot that way writes its settings (BOT_MODE=..., one a line)
into the bot's folder instead, and the bot reads them here.
"""

from __future__ import annotations

import os
from pathlib import Path


def load(script: str) -> None:
    """Put the settings beside `script` into the environment, under what is already set."""
    settings = Path(script).resolve().with_name("bot.env")
    if settings.exists():
        for line in settings.read_text().splitlines():
            key, _, value = line.partition("=")
            os.environ.setdefault(key, value)
