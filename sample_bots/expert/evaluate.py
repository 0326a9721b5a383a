"""Quick strength matches in-process: the engine alone, no referee, no network.

    .venv/bin/python sample_bots/expert/evaluate.py --games 400 --table-size 4

Tables of the chosen size from the expert and the Python samples, every table
in every seat rotation on one deal (duplicate deals, so luck evens out), with
the seating shuffled from table to table. One `Expert` plays every game, as one
session of the arena would, so it learns its opponents as it goes. Standings
are rated with TrueSkill as the arena rates them (finishing places as ranks).
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import trueskill
from policy import BLUFF, Expert
from search import Prices

from arena.kit import Answer, Pass
from engine import (
    CALZA,
    Calza,
    GameState,
    HmacDice,
    Observation,
    Opener,
    Phase,
    Ruleset,
    apply,
    calza_offers,
    deal,
    is_legal,
    new_game,
    observe,
    roll_hands,
    rolloff,
)

SAMPLES = Path(__file__).resolve().parents[1]
NAMES = ("expert", "strong", "binomial", "bluffer", "random")

Seat = Callable[[Observation], Answer]


def sample_policy(name: str) -> Seat:
    """`act` of sample_bots/<name>_bot.py."""
    spec = importlib.util.spec_from_file_location(f"sample_{name}", SAMPLES / f"{name}_bot.py")
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the {name} sample bot")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    policy: Seat = module.act
    return policy


def play(seats: Sequence[Seat], ruleset: Ruleset, source: HmacDice) -> GameState:
    """One game, every answer checked as the referee would check it."""
    opener = rolloff(source, len(seats)) if ruleset.opener is Opener.ROLLOFF else 0
    state = new_game(ruleset, len(seats), opener)
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DEAL:
            state = deal(state, roll_hands(state, source))
            continue
        for seat in calza_offers(state):
            answer = seats[seat](observe(state, seat))
            if isinstance(answer, Calza):
                state = apply(state, seat, CALZA)
                break
            if not isinstance(answer, Pass):
                raise AssertionError(f"seat {seat} answered {answer} to a calza offer")
        else:
            seat = state.to_act
            answer = seats[seat](observe(state, seat))
            if isinstance(answer, Pass) or not is_legal(state, seat, answer):
                raise AssertionError(f"seat {seat} answered {answer} illegally")
            state = apply(state, seat, answer)
    return state


def match(
    expert: Expert,
    names: Sequence[str],
    table_size: int,
    games: int,
    seed: int,
    ruleset: Ruleset,
) -> list[list[str]]:
    """At least `games` games, each as its bots' names from the winner down."""
    policies = {name: sample_policy(name) for name in names if name != "expert"}
    rng = random.Random(seed)
    results: list[list[str]] = []
    tables = list(itertools.combinations(names, table_size))
    played = 0
    for deal_no in itertools.count():
        if played >= games:
            break
        table = list(rng.choice(tables))
        rng.shuffle(table)
        dice_seed = rng.randbytes(32)
        for shift in range(table_size):
            seated = table[shift:] + table[:shift]
            game_id = f"{deal_no}-{shift}"
            seats = [
                (lambda o, g=game_id, s=seated: expert.act(o, g, s))
                if name == "expert"
                else policies[name]
                for name in seated
            ]
            state = play(seats, ruleset, HmacDice(dice_seed, f"deal-{deal_no}"))
            if "expert" in seated:
                expert.game_over(game_id, seated, seated.index("expert"), state.history)
            results.append([seated[seat] for seat in state.order])
            played += 1
    return results


def report(results: Sequence[Sequence[str]]) -> str:
    """Games, TrueSkill (rated game by game, places as ranks), mean place and wins per bot."""
    env = trueskill.TrueSkill(draw_probability=0.0)
    ratings: dict[str, trueskill.Rating] = {}
    places: dict[str, list[int]] = {}
    for order in results:
        groups = [(ratings.setdefault(name, env.create_rating()),) for name in order]
        for name, (rated,) in zip(order, env.rate(groups, ranks=range(len(order))), strict=True):
            ratings[name] = rated
        for place, name in enumerate(order, start=1):
            places.setdefault(name, []).append(place)
    lines = [f"{'bot':<10} {'games':>6} {'mu':>6} {'sigma':>6} {'mean place':>11} {'wins':>7}"]
    for name in sorted(places, key=lambda n: -ratings[n].mu):
        got = places[name]
        lines.append(
            f"{name:<10} {len(got):>6} {ratings[name].mu:>6.2f} {ratings[name].sigma:>6.2f} "
            f"{statistics.fmean(got):>11.3f} {got.count(1) / len(got):>7.1%}"
        )
    both = [order for order in results if "expert" in order and "strong" in order]
    if both:
        ahead = sum(order.index("expert") < order.index("strong") for order in both)
        lines.append(
            f"expert ahead of strong in {ahead} of {len(both)} games ({ahead / len(both):.1%})"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--table-size", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=float, default=50.0)
    parser.add_argument("--bots", nargs="+", default=list(NAMES), choices=NAMES)
    parser.add_argument("--bluff", type=float, default=BLUFF)
    parser.add_argument(
        "--price",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="a field of search.Prices, e.g. continuation=0.9",
    )
    args = parser.parse_args()
    prices = Prices(**{k: float(v) for k, _, v in (p.partition("=") for p in args.price)})
    expert = Expert(budget=args.budget_ms / 1000, prices=prices, bluff=args.bluff, seed=args.seed)
    started = time.perf_counter()
    results = match(expert, args.bots, args.table_size, args.games, args.seed, Ruleset())
    print(report(results))
    print(f"{time.perf_counter() - started:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
