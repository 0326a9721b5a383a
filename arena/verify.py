"""`arena verify`: every deal of a finished tournament checked from its revealed seed.

Before play the organiser publishes the seed's SHA-256; at the end, the seed.
Every die is HMAC-SHA256 of that seed (engine.dice), so anyone holding the
folder can deal each game again and compare it with its replay: the hands of
every round, and who opened. A seed that does not hash to the commitment, a
replay dealt on other dice, or on another game's deal, shows that something
was changed after the fact. Nothing here reads seed.secret: only what is
published.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from arena.results import ResultsError, TournamentFolder, replay_problem
from arena.schedule import Deals, ScheduledGame, build


class VerifyError(Exception):
    """The folder cannot be verified (yet); the message says why."""


@dataclass(frozen=True, slots=True)
class GameCheck:
    game: str
    problem: str | None
    """None when every deal of the replay is the seed's."""
    rounds: int


@dataclass(frozen=True, slots=True)
class Verdict:
    tournament: str
    commitment_ok: bool
    games: tuple[GameCheck, ...]
    problems: tuple[str, ...]
    """Whatever else is wrong: lines left out, games with no record."""

    @property
    def ok(self) -> bool:
        return (
            self.commitment_ok and not self.problems and all(g.problem is None for g in self.games)
        )


def verify(root: Path) -> Verdict:
    folder = TournamentFolder(root)
    try:
        info = folder.info()
    except (OSError, ValueError) as error:
        raise VerifyError(f"{root} is not a tournament folder: {error}") from None
    if not info.get("seed"):
        raise VerifyError(
            f"{root} has not finished: its seed is revealed only at the end, and until then "
            f"no deal can be checked; finish it (arena run --resume {root}), then verify"
        )
    try:
        seed = bytes.fromhex(info["seed"])
        schedule = build(
            info["entrants"],
            info["table_size"],
            info["games"],
            seed,
            Deals(info.get("deals", Deals.OWN.value)),
        )
        finished = folder.finished(schedule)
    except (KeyError, ValueError, ResultsError) as error:
        raise VerifyError(f"{root}: cannot rebuild its schedule: {error}") from None
    committed = hashlib.sha256(seed).hexdigest() == info.get("seed_sha256")
    ruleset = engine.Ruleset.from_mapping(info["ruleset"])
    by_id = {line["game"]: line for line in finished.lines}
    dropped = set(info.get("dropped", []))
    problems = list(finished.problems)
    checks = []
    for game in schedule:
        line = by_id.get(game.game_id)
        if line is None:
            if game.game_id not in dropped:
                problems.append(
                    f"{game.game_id}: planned, but recorded neither as played nor as dropped"
                )
            continue
        checks.append(_check_game(folder, game, line, seed, ruleset))
    return Verdict(info["id"], committed, tuple(checks), tuple(problems))


def _check_game(
    folder: TournamentFolder,
    game: ScheduledGame,
    line: dict[str, Any],
    seed: bytes,
    ruleset: engine.Ruleset,
) -> GameCheck:
    path = folder.replays / f"{game.game_id}.json"
    damaged = replay_problem(path, line)
    if damaged is not None:
        return GameCheck(game.game_id, damaged, 0)
    replay = json.loads(path.read_text(encoding="utf-8"))
    if replay.get("deal_key") != game.deal_key:
        return GameCheck(
            game.game_id,
            f"dealt as {replay.get('deal_key')!r}, but the schedule deals it as {game.deal_key!r}",
            0,
        )
    dice = engine.HmacDice(seed, game.deal_key)
    deals = [e for e in replay["events"] if isinstance(e, dict) and "hands" in e]
    if not deals:
        return GameCheck(game.game_id, "the replay holds no deal", 0)
    problem = _first_mismatch(deals, dice, game.players)
    if problem is None:
        opener = (
            engine.rolloff(dice, len(game.players))
            if ruleset.opener is engine.Opener.ROLLOFF
            else 0
        )
        if deals[0].get("opener") != opener:
            problem = (
                f"round 1 is opened by seat {deals[0].get('opener')}, "
                f"but the seed's roll-off gives seat {opener}"
            )
    return GameCheck(game.game_id, problem, len(deals))


def _first_mismatch(
    deals: Sequence[dict[str, Any]], dice: engine.HmacDice, players: Sequence[str]
) -> str | None:
    for deal in deals:
        hands = deal["hands"]
        if not isinstance(hands, list) or len(hands) != len(players):
            return f"round {deal.get('round')}: not one hand per seat"
        for seat, hand in enumerate(hands):
            if not isinstance(hand, list):
                return f"round {deal.get('round')}, seat {seat}: not a hand"
            dealt = list(dice.hand(int(deal["round"]), seat, len(hand)))
            if hand != dealt:
                return (
                    f"round {deal['round']}, {players[seat]} (seat {seat}): the replay shows "
                    f"{_faces(hand)}, the seed deals {_faces(dealt)}"
                )
    return None


def _faces(hand: Sequence[object]) -> str:
    return " ".join(map(str, hand)) or "no dice"
