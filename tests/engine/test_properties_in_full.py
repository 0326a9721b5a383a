"""The engine's properties with every example they name, as the default suite tries only a
share of them (engine_support.QUICK_SCALE): the same tests, in their own pytest, at the full
count (ENGINE_PROPERTY_SCALE=1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


@pytest.mark.slow
def test_the_engine_properties_hold_over_all_their_examples() -> None:
    env = {**os.environ, "ENGINE_PROPERTY_SCALE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "0", str(HERE)],
        cwd=HERE.parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
