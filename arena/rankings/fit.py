"""Plackett-Luce strength from finishing orders, fitted on all games at once.

Online TrueSkill depends on the order games were rated in; a batch fit does
not: every finishing order counts the same, whenever it was played. A
finishing order is a Plackett-Luce observation (the winner chosen from all,
the second from the rest, and so on), so the fit is choix's I-LSR for
rankings. A game has no ties: players leave one at a time (a fault, too, puts
its bot out at once), so every order is strict.

A bot that won (or lost) every game has no finite maximum-likelihood
strength; choix's `alpha` adds a small rate between every two bots to the
Markov chain I-LSR solves, which keeps every strength finite and puts a bot
that never met the others at the middle rather than nowhere.

The bootstrap refits hundreds of reweighted copies of the same games, and
choix refits one copy in Python loops (0.37 s for 3,000 six-player games on
this machine, so two minutes for 300 copies): `fit_weighted` runs the same
I-LSR iteration for every copy at once with numpy, and agrees with choix on
unit weights (tests/arena/rankings/test_pl_fit.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import sparse

from arena.errors import ArenaError

ALPHA = 0.01
"""choix's regularisation: small beside one game's weight, enough to keep a clean sweep finite."""
MAX_ITER = 200
TOL = 1e-8
"""As choix's: the centred strengths move by at most this per bot between two iterations."""

Floats = npt.NDArray[np.float64]


class RankingError(ArenaError, ValueError):
    """Finishing orders that cannot be fitted; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Orders:
    """Finishing orders as bot indexes, laid out once for every fit of them.

    A game of k players is k-1 choices: the stage s picks `winner[s]` from the
    players still in. `beaten` holds, for each stage, the pairs (loser, winner)
    as flat indexes loser * n + winner, so that the Markov chain of every
    weighting is one sparse product.
    """

    names: tuple[str, ...]
    indexes: tuple[tuple[int, ...], ...]
    """Each game's order, winner first, as indexes into `names`."""
    remaining: sparse.csr_matrix
    """Stages x bots: 1 where the bot is still in at that stage."""
    stage_game: npt.NDArray[np.intp]
    beaten: sparse.csr_matrix
    """Stages x bots squared: 1 at loser * n + winner for each loser of the stage."""

    @classmethod
    def of(cls, names: Sequence[str], orders: Sequence[Sequence[str]]) -> Orders:
        index = {name: i for i, name in enumerate(names)}
        if len(index) != len(names):
            raise RankingError("bot names must be unique")
        n = len(names)
        games: list[tuple[int, ...]] = []
        rem_rows: list[int] = []
        rem_cols: list[int] = []
        beat_rows: list[int] = []
        beat_cols: list[int] = []
        stage_game: list[int] = []
        for g, order in enumerate(orders):
            try:
                seats = tuple(index[name] for name in order)
            except KeyError as error:
                raise RankingError(f"game {g} has {error.args[0]!r}, who is not ranked") from None
            if len(set(seats)) != len(seats) or len(seats) < 2:
                raise RankingError(f"game {g}'s finishing order {list(order)} is not a ranking")
            games.append(seats)
            for i, winner in enumerate(seats[:-1]):
                stage = len(stage_game)
                stage_game.append(g)
                for seat in seats[i:]:
                    rem_rows.append(stage)
                    rem_cols.append(seat)
                for loser in seats[i + 1 :]:
                    beat_rows.append(stage)
                    beat_cols.append(loser * n + winner)
        stages = len(stage_game)
        return cls(
            tuple(names),
            tuple(games),
            sparse.csr_matrix((np.ones(len(rem_rows)), (rem_rows, rem_cols)), shape=(stages, n)),
            np.asarray(stage_game, dtype=np.intp),
            sparse.csr_matrix(
                (np.ones(len(beat_rows)), (beat_rows, beat_cols)), shape=(stages, n * n)
            ),
        )


def fit(orders: Orders, alpha: float = ALPHA) -> Floats:
    """Each bot's strength (log scale, centred on 0), by choix's I-LSR."""
    import choix  # here, not at the top: it loads scipy.stats, 1.3 s no other command should pay

    n = len(orders.names)
    if n < 2:
        return np.zeros(n)
    data = list(orders.indexes)
    return np.asarray(choix.ilsr_rankings(n, data, alpha=alpha, max_iter=MAX_ITER, tol=TOL))


def fit_weighted(orders: Orders, counts: Floats, alpha: float = ALPHA) -> Floats:
    """Strengths for each row of `counts` (copies x games: how often each game counts).

    choix's I-LSR, step for step, for every row at once: the weights start
    at 1; each step builds the Markov chain whose rate from loser to winner
    is the stage's count over the remaining players' weight, plus `alpha`
    everywhere, and takes its stationary distribution as the new weights.
    """
    n = len(orders.names)
    copies = counts.shape[0]
    if n < 2:
        return np.zeros((copies, n))
    stage_counts = counts[:, orders.stage_game]  # copies x stages
    weights = np.ones((copies, n))
    previous = np.zeros((copies, n))
    for _ in range(MAX_ITER):
        totals = np.asarray(orders.remaining @ weights.T).T  # copies x stages
        rates = np.asarray(orders.beaten.T @ (stage_counts / totals).T).T
        chain = rates.reshape(copies, n, n) + alpha
        chain[:, np.arange(n), np.arange(n)] = 0.0
        chain[:, np.arange(n), np.arange(n)] = -chain.sum(axis=2)  # the chain's generator
        params = _log_centred(_stationary(chain))
        if np.abs(params - previous).sum(axis=1).max() <= TOL * n:
            return params
        previous = params
        shifted = np.exp(params)
        weights = n * shifted / shifted.sum(axis=1, keepdims=True)
    raise RankingError(f"the strength fit did not settle in {MAX_ITER} iterations")


def _stationary(generator: Floats) -> Floats:
    """pi with pi Q = 0 and sum(pi) = 1, for each chain's generator Q (copies x n x n)."""
    copies, n, _ = generator.shape
    system = np.transpose(generator, (0, 2, 1)).copy()
    system[:, -1, :] = 1.0
    right = np.zeros((copies, n, 1))
    right[:, -1, 0] = 1.0
    return np.asarray(np.linalg.solve(system, right)[:, :, 0], dtype=np.float64)


def _log_centred(dist: Floats) -> Floats:
    logs: Floats = np.log(np.clip(dist, 1e-300, None))
    centred: Floats = logs - logs.mean(axis=1, keepdims=True)
    return centred
