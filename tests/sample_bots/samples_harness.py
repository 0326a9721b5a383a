"""Play the Python sample bots against each other in-process, with the engine alone.

No referee, no network: each seat is a policy (`act(obs) -> Answer`) called
with `engine.observe` for the seat that must answer, the way the referee would
ask it. Every answer is checked before it is applied, so a game here doubles
as a legality test. Deals come from `HmacDice`, so a (seed, game key) pair
always plays the same game, and the seat rotations of one table share a key
(duplicate deals) so that luck of the dice evens out across the bots.

Run it to measure strength, e.g.
    .venv/bin/python tests/sample_bots/harness.py --games 400
    .venv/bin/python tests/sample_bots/harness.py --games 400 --rule calza=any
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from arena.kit import Pass, Policy
from engine import (
    CALZA,
    Action,
    Calza,
    CalzaRule,
    FaultPenalty,
    GameState,
    HmacDice,
    Opener,
    PalificoFaceChange,
    Phase,
    Ruleset,
    Side,
    apply,
    bid_floors,
    calza_offers,
    deal,
    is_legal,
    new_game,
    observe,
    roll_hands,
    rolloff,
)

BOT_DIR = Path(__file__).resolve().parents[2] / "sample_bots"
BOT_NAMES = ("strong", "binomial", "bluffer", "random")
"""The sample bots, strongest first: `<name>_bot.py` in sample_bots/."""

MAX_ACTIONS = 100_000
"""A game longer than this is a bug (calza on a full hand can repeat, but not forever)."""


class IllegalAnswerError(AssertionError):
    """A policy answered something the rules do not allow at that moment."""


def load_bot(name: str) -> ModuleType:
    """Import sample_bots/<name>_bot.py as a module (its `run` stays uncalled)."""
    path = BOT_DIR / f"{name}_bot.py"
    module_name = f"sample_bot_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def load_policies(names: Iterable[str] = BOT_NAMES) -> dict[str, Policy]:
    return {name: load_bot(name).act for name in names}


def _reseed(policies: Sequence[Policy], seed: bytes) -> None:
    """Seed the module-level `rng` of every bot that has one, so that games replay exactly."""
    for policy in policies:
        rng = getattr(sys.modules.get(policy.__module__), "rng", None)
        if isinstance(rng, random.Random):
            rng.seed(seed + policy.__module__.encode())


def _takes_calza(policy: Policy, state: GameState, seat: int) -> bool:
    """Whether `seat`, offered an out-of-turn calza, calls it; refuses any other answer."""
    answer = policy(observe(state, seat))
    if isinstance(answer, Pass):
        return False
    if isinstance(answer, Calza) and is_legal(state, seat, CALZA):
        return True
    raise IllegalAnswerError(
        f"seat {seat} answered {answer!r} to a calza offer: {_where(state, seat)}"
    )


def _turn(policy: Policy, state: GameState, seat: int) -> Action:
    """What `seat` plays on its turn; refuses an answer that is not legal now."""
    answer = policy(observe(state, seat))
    if isinstance(answer, Pass) or not is_legal(state, seat, answer):
        raise IllegalAnswerError(
            f"seat {seat} answered {answer!r} on its turn: {_where(state, seat)}"
        )
    return answer


def _where(state: GameState, seat: int) -> str:
    return (
        f"ruleset {state.ruleset}, dice {state.dice}, hand {state.hands[seat]}, "
        f"bids {state.bids}, palifico {state.palifico}, floors {bid_floors(state, seat)}"
    )


def play_game(
    policies: Sequence[Policy], ruleset: Ruleset, seed: bytes, game_key: str
) -> GameState:
    """Play one game with `policies[seat]` at each seat; return the finished game.

    Its `order` is the finishing order of the seats, its `history` every round.
    """
    source = HmacDice(seed, game_key)
    _reseed(policies, seed + game_key.encode())
    players = len(policies)
    opener = rolloff(source, players) if ruleset.opener is Opener.ROLLOFF else 0
    state = new_game(ruleset, players, opener)
    for _ in range(MAX_ACTIONS):
        if state.phase is Phase.OVER:
            return state
        if state.phase is Phase.DEAL:
            state = deal(state, roll_hands(state, source))
            continue
        # Under calza "any" the others are offered calza first, in seat order from the bidder.
        for seat in calza_offers(state):
            if _takes_calza(policies[seat], state, seat):
                state = apply(state, seat, CALZA)
                break
        else:
            seat = state.to_act
            state = apply(state, seat, _turn(policies[seat], state, seat))
    raise AssertionError(f"game {game_key} did not end within {MAX_ACTIONS} actions")


@dataclass
class Standings:
    """Finishing places (1 = winner) of each bot over a series of games."""

    places: dict[str, list[int]] = field(default_factory=dict)

    def add(self, names: Sequence[str], order: Sequence[int]) -> None:
        for place, seat in enumerate(order, start=1):
            self.places.setdefault(names[seat], []).append(place)

    def mean_place(self, name: str) -> float:
        return statistics.fmean(self.places[name])

    def win_rate(self, name: str) -> float:
        return self.places[name].count(1) / len(self.places[name])

    def table(self) -> str:
        rows = sorted(self.places, key=self.mean_place)
        lines = [f"{'bot':<10} {'games':>6} {'mean place':>11} {'wins':>7}"]
        lines += [
            f"{name:<10} {len(self.places[name]):>6} {self.mean_place(name):>11.3f} "
            f"{self.win_rate(name):>7.1%}"
            for name in rows
        ]
        return "\n".join(lines)


def tournament(
    policies: dict[str, Policy], games: int, seed: int, ruleset: Ruleset | None = None
) -> Standings:
    """Tables of all the given bots, each table played in every seat rotation on the same deals.

    The seating of each table is a seeded shuffle, so who sits left of whom varies too.
    `games` is rounded up to a whole number of rotations.
    """
    ruleset = ruleset or Ruleset()
    rng = random.Random(seed)
    names = list(policies)
    n = len(names)
    standings = Standings()
    for table in range(-(-games // n)):
        rng.shuffle(names)
        dice_seed = rng.randbytes(32)
        for shift in range(n):
            seated = names[shift:] + names[:shift]
            game = play_game([policies[x] for x in seated], ruleset, dice_seed, f"table-{table}")
            standings.add(seated, game.order)
    return standings


def random_ruleset(rng: random.Random) -> Ruleset:
    """Any ruleset: every field of `Ruleset` drawn at random."""
    return Ruleset(
        dice_per_player=rng.randint(1, 6),
        opener=rng.choice(list(Opener)),
        lower_face_with_higher_count=rng.random() < 0.5,
        calza=rng.choice(list(CalzaRule)),
        palifico=rng.random() < 0.7,
        palifico_once=rng.random() < 0.5,
        palifico_face_change=rng.choice(list(PalificoFaceChange)),
        palifico_min_players=rng.randint(2, 4),
        open_on_pacos=rng.random() < 0.5,
        opener_after_elimination=rng.choice(list(Side)),
        calza_max_dice=rng.choice([None, rng.randint(1, 7)]),
        fault_penalty=rng.choice(list(FaultPenalty)),
    )


def legality_soak(policies: dict[str, Policy], games: int, seed: int) -> int:
    """Games of 2..6 seats under random rulesets; raises on the first illegal answer.

    The seats cycle through all the bots before any repeats, so every bot plays
    in every game with at least as many seats as bots. Returns the number of games.
    """
    rng = random.Random(seed)
    names = sorted(policies)
    for game in range(games):
        players = rng.randint(2, 6)
        seated = [
            names[(game + i) % len(names)] if i < len(names) else rng.choice(names)
            for i in range(players)
        ]
        rng.shuffle(seated)
        ruleset = random_ruleset(rng)
        play_game([policies[x] for x in seated], ruleset, rng.randbytes(32), f"soak-{game}")
    return games


def _parse_rules(pairs: Sequence[str]) -> Ruleset:
    return Ruleset.from_mapping(
        {
            k: (int(v) if v.isdigit() else {"true": True, "false": False}.get(v, v))
            for k, _, v in (p.partition("=") for p in pairs)
        }
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bots", nargs="+", default=list(BOT_NAMES), choices=BOT_NAMES)
    parser.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a ruleset field, e.g. calza=any, palifico=false, dice_per_player=3",
    )
    parser.add_argument(
        "--soak",
        type=int,
        default=0,
        metavar="GAMES",
        help="also play GAMES legality games under random rulesets",
    )
    args = parser.parse_args(argv)
    policies = load_policies(args.bots)
    if args.soak:
        legality_soak(policies, args.soak, args.seed)
        print(f"{args.soak} random-ruleset games: every answer legal")
    ruleset = _parse_rules(args.rule)
    print(f"ruleset {ruleset.changes() or 'defaults'}, {len(args.bots)} seats, seed {args.seed}")
    print(tournament(policies, args.games, args.seed, ruleset).table())


if __name__ == "__main__":
    main()
