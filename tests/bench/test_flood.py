"""`arena bench flood`: a hostile process floods the referee while honest bots play.

The fast test floods briefly and judges no figure: it shows the flood reaches
the referee and is refused with a reason while an honest game goes on. The
slow one is the measurement itself, asserted: the arena stays under 500 MiB
and no honest bot is charged.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench.flood import FloodSetup, measure


def test_a_short_flood_is_refused_with_a_reason_while_honest_bots_play(tmp_path: Path) -> None:
    setup = FloodSetup(
        seconds=2.0, connections=4, streams=4, message_bytes=256 * 1024, bots=2, games=1, settle=0.2
    )
    figures = asyncio.run(asyncio.wait_for(measure(setup, tmp_path), 90))
    print("\n".join(figures.lines()))
    assert figures.decisions > 0
    assert figures.honest_faults == {}
    ended = figures.flood["ended"]
    assert isinstance(ended, dict) and ended, figures.flood
    assert all(
        how.startswith("RESOURCE_EXHAUSTED: ") and "Received message larger than max" in how
        for how in ended
    ), ended


@pytest.mark.slow
def test_a_hello_flood_leaves_the_arena_under_500_mib_and_the_honest_bots_unfaulted() -> None:
    """The flood of the report: 512 streams, each a first message of nearly 4 MiB, for 30 s."""
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli.main", "bench", "flood", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    print(json.dumps(figures, indent=2))
    assert figures["rss_peak_mib"] < 500
    assert figures["honest_faults"] == {}
    assert figures["honest_decisions"] > 0
    assert figures["flood"]["streams_opened"] >= 512
