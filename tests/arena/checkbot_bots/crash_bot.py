"""Connects, then dies on its first request."""

import os

from arena.kit import run


def act(obs):
    os._exit(3)


run(act)
