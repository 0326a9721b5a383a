"""The environment a bot gets: built from an allow-list, never the arena's own.

The organiser's variables may hold secrets; a bot sees only what the guide
lists, and what the arena tells it (where to dial, who it is, its token).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from arena.bots.toolchains import strict_path


def arena_variables(address: str, name: str, token: str, sessions: int) -> dict[str, str]:
    """What the arena tells every bot it starts (the guide's contract): where to dial,
    who it is, its token and how many sessions to open."""
    return {
        "PERUDO_ADDRESS": address,
        "PERUDO_BOT_NAME": name,
        "PERUDO_TOKEN": token,
        "PERUDO_SESSIONS": str(sessions),
    }


def bot_environment(extra: dict[str, str], sandboxed: bool, strict: bool = False) -> dict[str, str]:
    """The environment of a bot: what the guide lists, and nothing of the arena's own.
    A submitted bot's (`strict`) PATH is where its programs were looked up (the system's
    and the toolchains' folders, `arena.bots.toolchains`), never the arena's own."""
    python_dir = str(Path(sys.executable).parent)
    path = os.pathsep.join(strict_path()) if strict else os.environ.get("PATH", "/usr/bin:/bin")
    env = {
        "PATH": python_dir + os.pathsep + path,
        "HOME": "/tmp" if sandboxed else os.environ.get("HOME", "/tmp"),
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONUNBUFFERED": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(extra)
    return env
