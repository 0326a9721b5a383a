"""Telling a recorded game round by round, dice revealed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def find_replay(game: str, results: Path) -> Path:
    """A replay file from a path, `TOURNAMENT/GAME`, or a game id (newest tournament first)."""
    direct = Path(game)
    if direct.is_file():
        return direct
    if "/" in game:
        tournament, _, game_id = game.rpartition("/")
        candidate = results / tournament / "replays" / f"{game_id}.json"
        if candidate.is_file():
            return candidate
    matches = sorted(
        results.glob(f"*/replays/{game}.json"), key=lambda p: p.stat().st_mtime, reverse=True
    )
    if not matches:
        raise FileNotFoundError(f"no replay of game {game!r} under {results}")
    return matches[0]


def _face(face: int) -> str:
    return "pacos" if face == 1 else f"{face}s"


def tell(replay: dict[str, Any]) -> list[str]:
    names: list[str] = replay["players"]
    lines = [f"Game {replay['game']}: {', '.join(f'{i}:{n}' for i, n in enumerate(names))}"]
    for event in replay["events"]:
        if "hands" in event:
            kind = " (palifico)" if event["palifico"] else ""
            lines.append(f"Round {event['round']}{kind}, {names[event['opener']]} opens")
            for seat, hand in enumerate(event["hands"]):
                if hand:
                    lines.append(f"    {names[seat]:>16}: {' '.join(map(str, hand))}")
        elif "action" in event:
            action = event["action"]
            if action.startswith("bid "):
                _, count, face = action.split()
                action = f"bids {count} x {_face(int(face))}"
            lines.append(f"  {names[event['seat']]} {action}  ({event['ms']:.1f} ms)")
        elif "end" in event:
            change = event["change"]
            verb = {-1: "loses a die", 1: "gains a die", 0: "keeps every die"}.get(
                change, f"changes by {change}"
            )
            lines.append(f"  -> {event['counted']} counted: {names[event['changed']]} {verb}")
        elif "fault" in event:
            lines.append(
                f"  !! {names[event['seat']]} fault ({event['fault']}): {event['detail']}"
                + (f" — sent {event['sent']}" if event["sent"] else "")
            )
    lines.append("Finishing order: " + ", ".join(replay["ranking"]))
    return lines


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data
