"""What makes a tournament in the league itself: not its name, which an organiser reuses.

A name is chosen by hand (`--name night2`) and may be given again to another
run once the first one's folder is gone; the league would then hold two nights
under one name and keep the wrong games. So each tournament carries a run id,
made at random when its folder is laid out and kept in its tournament.json, and
the league records it with the tournament: a run whose id is not the one the
league holds under its name is another run.

A folder laid out before the run id existed has none; its identity is then its
seed's commitment and the moment it was laid out, both in every tournament.json
the arena wrote, and in the info the league kept of it, so a store from then is
given the same identity its folder has.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from arena.records import GameLine


def identity_of(info: Mapping[str, Any]) -> str:
    """The run's identity from its tournament.json (or the info the league kept of it)."""
    run_id = info.get("run_id")
    if run_id:
        return str(run_id)
    return f"seed {info.get('seed_sha256', '')} laid out {float(info.get('created', 0.0))!r}"


def described(info: Mapping[str, Any]) -> str:
    """A run in the words an organiser can tell it by: its id's start, when it was laid out,
    its seed commitment's start."""
    created = float(info.get("created", 0.0))
    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created)) if created else "unknown"
    seed = str(info.get("seed_sha256", ""))[:12] or "unknown"
    run = f"run {str(info['run_id'])[:8]}…, " if info.get("run_id") else ""
    return f"{run}laid out {when}, seed commitment {seed}…"


def same_record(one: GameLine, other: GameLine) -> bool:
    """Whether two records of a game say the same, as games.jsonl would write them."""
    return one.to_json() == other.to_json()


def line_difference(stored: GameLine, offered: GameLine) -> str:
    """Where two records of one game differ, field by field, each as it is in games.jsonl."""
    old, new = stored.to_json(), offered.to_json()
    keys = [key for key in {**old, **new} if old.get(key) != new.get(key)]
    return "; ".join(f"{key} {_shown(old.get(key))} vs {_shown(new.get(key))}" for key in keys)


def _shown(value: object) -> str:
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 80 else text[:77] + "..."
