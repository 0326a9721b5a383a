"""`arena verify`: every deal of a finished tournament checked from its revealed seed.

Before play the organiser publishes the seed's SHA-256; at the end, the seed.
Every die is HMAC-SHA256 of that seed (engine.dice), so anyone holding the
folder can play each game again on those dice with its recorded actions and
compare: the hands of every round, who opened, and the result. A seed that
does not hash to the commitment, a replay dealt on other dice, or on another
game's deal, shows that something was changed after the fact. Nothing here
reads seed.secret: only what is published.

A bot that played as a submitted version (a league server's) is checked too:
its files as sent must still hash to the version's hash, and the tree it played
from to the files hash the tournament recorded (`arena.tournament.versions`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import engine
from arena.errors import ArenaError
from arena.records import Deal, Decision, FaultEvent, GameLine, ReplayEvent
from arena.tournament.config import TournamentError
from arena.tournament.results.days import FoldedRound, find_round
from arena.tournament.results.folder import ResultsError, TournamentFolder
from arena.tournament.results.replays import FoldedReplays, FolderReplays, Replays
from arena.tournament.schedule.round_robin import ScheduledGame
from arena.tournament.versions import pin_problems


class VerifyError(ArenaError):
    """The folder cannot be verified (yet); the message says why."""


@dataclass(frozen=True, slots=True)
class GameCheck:
    game: str
    problem: str | None
    """None when every deal of the replay is the seed's."""
    rounds: int
    pruned: bool = False
    """Its replay was let go by `arena league prune`: its result stands, its deals cannot be
    checked (`arena.tournament.results.pruning`)."""


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
    """Verify the tournament folder `root`, or the round of that name folded into its day's
    record (`arena.tournament.results.days`) once its folder is gone."""
    if not root.is_dir() and (folded := find_round(root.parent, root.name)) is not None:
        return _verify(folded, FoldedReplays(folded))
    folder = TournamentFolder(root)
    return _verify(folder, FolderReplays(folder))


def _verify(folder: TournamentFolder | FoldedRound, replays: Replays) -> Verdict:
    root = folder.root
    try:
        info = folder.info()
    except (OSError, ValueError) as error:
        raise VerifyError(f"{root} is not a tournament folder: {error}") from None
    if not info.seed:
        raise VerifyError(
            f"{root} has not finished: its seed is revealed only at the end, and until then "
            f"no deal can be checked; finish it (arena run --resume {root}), then verify"
        )
    try:
        seed = bytes.fromhex(info.seed)
        schedule = folder.schedule(info)
        finished = folder.finished(schedule)
    except (ValueError, ResultsError, TournamentError) as error:
        raise VerifyError(f"{root}: cannot rebuild its schedule: {error}") from None
    committed = hashlib.sha256(seed).hexdigest() == info.seed_sha256
    ruleset = info.plan.ruleset
    by_id = {line.game: line for line in finished.lines}
    # Dropped: their bots left; unplayed: --until-confident knew the ranking without them.
    dropped = set(info.dropped) | set(info.unplayed)
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
        if replays.pruned(game.game_id):
            checks.append(GameCheck(game.game_id, None, 0, pruned=True))
            continue
        keys = {game.deal_key} if info.plan.deals is not None else _keys_before_own_deals(game)
        checks.append(_check_game(replays, game, line, seed, ruleset, keys))
    for name, entrant in sorted(info.bots.items()):  # submitted versions: still as they played
        if entrant.version is not None:
            problems += pin_problems(name, entrant.version, entrant.path, entrant.files_sha256)
    return Verdict(info.id, committed, tuple(checks), tuple(problems))


def _check_game(
    replays: Replays,
    game: ScheduledGame,
    line: GameLine,
    seed: bytes,
    ruleset: engine.Ruleset,
    keys: set[str],
) -> GameCheck:
    replay = replays.read(line)
    if isinstance(replay, str):
        return GameCheck(game.game_id, replay, 0)
    key = replay.deal_key
    if key not in keys:
        planned = " or ".join(map(repr, sorted(keys)))
        return GameCheck(
            game.game_id, f"dealt as {key!r}, but the schedule deals it as {planned}", 0
        )
    dice = engine.HmacDice(seed, str(key))
    deals = len(replay.deals())
    if not deals:
        return GameCheck(game.game_id, "the replay holds no deal", 0)
    try:
        problem = _replay_on_the_seed(replay.events, dice, game.players, ruleset, line.ranking)
    except (engine.PerudoError, IndexError, ValueError) as error:
        problem = f"its actions do not follow the rules from its deals ({error})"
    return GameCheck(game.game_id, problem, deals)


def _keys_before_own_deals(game: ScheduledGame) -> set[str]:
    """The deal keys a game may have had in a tournament begun before every game had its own.

    Such a folder has no "deals" in tournament.json; it dealt the rotations of
    a table on one key, `u{unit}-t{table}`, and games it played after an upgrade
    on their own id.
    """
    unit, table, _ = game.game_id.split("-")
    return {game.game_id, f"u{int(unit[1:])}-t{int(table[1:])}"}


def _replay_on_the_seed(
    events: Sequence[ReplayEvent],
    dice: engine.HmacDice,
    players: Sequence[str],
    ruleset: engine.Ruleset,
    ranking: Sequence[str],
) -> str | None:
    """Play the game again on the seed's dice with the replay's actions; say where they part.

    Replaying through the rules engine checks more than the faces: how many dice
    each seat holds in each round, who opens, and that the recorded result is
    what those deals and actions give.
    """
    n = len(players)
    rolled = ruleset.opener is engine.Opener.ROLLOFF
    state = engine.new_game(ruleset, n, engine.rolloff(dice, n) if rolled else 0)
    for event in events:
        if isinstance(event, Deal):
            dealt = engine.roll_hands(state, dice)
            if event.hands != dealt:
                return _first_difference(state.round, event.hands, dealt, players)
            if event.opener != state.opener:
                return (
                    f"round {state.round} is opened by seat {event.opener}, "
                    f"but the seed and the rules give seat {state.opener}"
                )
            state = engine.deal(state, dealt)
        elif isinstance(event, Decision) and not event.declined:
            state = engine.apply(state, event.seat, engine.parse_action(event.action))
        elif isinstance(event, FaultEvent):
            state = engine.fault(state, event.seat)
    finish = [players[s] for s in state.order] if state.is_over else None
    if finish != list(ranking):
        return f"its deals and actions finish {finish or 'unfinished'}, not {list(ranking)}"
    return None


def _first_difference(
    round: int,
    shown: Sequence[Sequence[int]],
    dealt: Sequence[Sequence[int]],
    players: Sequence[str],
) -> str:
    if len(shown) != len(dealt):
        return f"round {round}: not one hand per seat"
    for seat, (hand, right) in enumerate(zip(shown, dealt, strict=True)):
        if hand != right:
            return (
                f"round {round}, {players[seat]} (seat {seat}): the replay shows "
                f"{_faces(hand)}, the seed deals {_faces(right)}"
            )
    return f"round {round}: the hands differ"


def _faces(hand: Sequence[int]) -> str:
    return " ".join(map(str, hand)) or "no dice"
