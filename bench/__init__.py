"""Benchmarks, measured side by side in one run, and the bot they play with.

They live in the clone, beside the package they measure, and are not shipped
in its wheel: a league server has no use for them. `arena bench` finds them
here (`arena.cli.bench`); a process a benchmark starts finds them through
`child_env`.
"""

from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
"""The clone: the folder holding `bench/`, `arena/` and `sample_bots/`."""


def child_env() -> dict[str, str]:
    """This environment, with the clone first on the path of a Python the bench starts
    (`python -m bench.flooder`): `bench` is not installed, only found."""
    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}
