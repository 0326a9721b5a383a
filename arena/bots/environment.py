"""The environment a bot gets: built from an allow-list, never the arena's own.

The organiser's variables may hold secrets; a bot sees only what the guide
lists, and what the arena tells it (where to dial, who it is, its token).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def arena_variables(address: str, name: str, token: str, sessions: int) -> dict[str, str]:
    """What the arena tells every bot it starts (the guide's contract): where to dial,
    who it is, its token and how many sessions to open."""
    return {
        "PERUDO_ADDRESS": address,
        "PERUDO_BOT_NAME": name,
        "PERUDO_TOKEN": token,
        "PERUDO_SESSIONS": str(sessions),
    }


def bot_environment(extra: dict[str, str], sandboxed: bool) -> dict[str, str]:
    """The environment of a bot: what the guide lists, and nothing of the arena's own."""
    python_dir = str(Path(sys.executable).parent)
    env = {
        "PATH": python_dir + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": "/tmp" if sandboxed else os.environ.get("HOME", "/tmp"),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env
