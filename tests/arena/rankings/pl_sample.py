"""Finishing orders drawn from a known Plackett-Luce model, for the rankings' tests."""

from __future__ import annotations

import numpy as np

from arena.rankings import Finish


def draw(
    strengths: dict[str, float], tables: int, size: int, rotations: int, seed: int
) -> list[Finish]:
    """`tables` random tables of `size`, each played `rotations` times as one group.

    A Plackett-Luce order is the players sorted by strength plus Gumbel noise."""
    rng = np.random.default_rng(seed)
    names = sorted(strengths)
    power = np.asarray([strengths[n] for n in names])
    games = []
    for t in range(tables):
        seated = rng.choice(len(names), size, replace=False)
        for _ in range(rotations):
            noisy = power[seated] + rng.gumbel(size=size)
            order = tuple(names[i] for i in seated[np.argsort(-noisy)])
            games.append(Finish(f"t{t}", order))
    return games
