"""A bot folder whose bot loads for a set time before it dials, and whose manifest may allow it."""

from __future__ import annotations

from pathlib import Path

_BOT = """\
import time

from arena.kit import PASS, run
from engine import DUDO, Bid

time.sleep({load_s!r})  # a model loading


def act(obs):
    if not obs.my_turn:
        return PASS
    if obs.standing is not None and obs.can_dudo:
        return DUDO
    face = max(f for f in range(1, 7) if obs.floors[f - 1])
    return Bid(obs.floors[face - 1], face)


run(act)
"""


def late_loader(parent: Path, name: str, load_s: float, connect_timeout: float | None) -> Path:
    """`parent/name`, a bot that sleeps `load_s` before `run`; its bot.toml gives
    `connect_timeout` when it is not None."""
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "bot.py").write_text(_BOT.format(load_s=load_s))
    manifest = f'name = "{name}"\nrun = "python bot.py"\n'
    if connect_timeout is not None:
        manifest += f"connect_timeout = {connect_timeout!r}\n"
    (folder / "bot.toml").write_text(manifest)
    return folder
