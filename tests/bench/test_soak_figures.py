"""The soak's summary and verdict, from samples and records made up here: the memory of
the first and last tenths, the longest gap, and a FAIL line naming each thing found."""

from __future__ import annotations

import dataclasses
import json

import pytest

from bench.soak_figures import (
    GROWTH_BOUND,
    HANG_S,
    MIB,
    SAMPLE_FIELDS,
    Gap,
    KillCheck,
    Ledger,
    Memory,
    Sample,
    SoakFigures,
    longest_gap,
    memory_of,
    pace,
)


def test_memory_is_the_averages_of_the_first_and_last_tenths_and_the_peak() -> None:
    # 20 samples: each tenth is two. A table's bots up or down in a sample moves the tree's
    # memory a lot; the tenths' averages and the peak of all readings are what is judged.
    averages = [100, 104, *([120] * 8), 500, *([120] * 7), 150, 156]
    peaks = [a + 10 for a in averages]
    memory = memory_of([a * MIB for a in averages], [p * MIB for p in peaks])
    assert memory == Memory(first=102.0, last=153.0, peak=510.0)
    assert memory.growth == pytest.approx(1.5)


def test_memory_of_a_few_samples_takes_one_for_a_tenth_and_of_none_is_none() -> None:
    memory = memory_of([50 * MIB, 55 * MIB, 60 * MIB], [70 * MIB, 55 * MIB, 60 * MIB])
    assert memory == Memory(first=50.0, last=60.0, peak=70.0)
    assert memory_of([], []) is None


def test_the_longest_gap_counts_from_the_start_and_to_the_end() -> None:
    assert longest_gap([10.0, 12.0, 50.0], 0.0, 60.0) == Gap(38.0, 50.0)
    assert longest_gap([5.0, 10.0], 0.0, 100.0) == Gap(90.0, 100.0)  # stopped playing
    assert longest_gap([], 0.0, 30.0) == Gap(30.0, 30.0)  # never began
    # Games before the soak's play (while submissions were judged) do not shorten a gap.
    assert longest_gap([-50.0, -1.0, 40.0], 0.0, 41.0) == Gap(40.0, 40.0)


def test_the_pace_is_the_games_a_minute_of_the_first_and_last_tenths() -> None:
    # 100 s: each tenth is 10 s; 3 games in the first, 1 in the last, one before the start.
    assert pace([-1.0, 2.0, 5.0, 9.9, 50.0, 95.0], 100.0) == (18.0, 6.0)
    assert pace([], 0.0) == (0.0, 0.0)


def _passing() -> SoakFigures:
    steady = Memory(100.0, 110.0, 130.0)
    return SoakFigures(
        minutes=3.0,
        asked_minutes=3.0,
        bots=("alpha", "beta", "gamma"),
        rejected={},
        table_size=3,
        jobs=2,
        games=300,
        faults={},
        gap=Gap(4.0, 90.0),
        pace=(110.0, 90.0),
        server=steady,
        tree=steady,
        ledger=Ledger(
            305, (), 305, "The league agrees with its folders: 9 tournaments, 305 games."
        ),
        kill=KillCheck(at=90.0, journaled=150, lost=(), restart_s=1.2, orphans=0),
        stopped="exit 0 in 1.0 s after SIGTERM",
        stop_clean=True,
        samples=(Sample(1.0, 100 * MIB, 110 * MIB, 300 * MIB, 350 * MIB, 2),),
    )


def test_a_soak_that_found_nothing_passes_and_says_so() -> None:
    figures = _passing()
    assert figures.findings() == []
    assert figures.rate == pytest.approx(100.0)
    assert figures.lines()[-1].startswith("PASS")
    assert "pace: 110.0 games a minute in the first tenth, 90.0 in the last" in figures.lines()
    data = figures.to_json()
    assert json.loads(json.dumps(data)) == data
    assert data["passed"] is True and data["findings"] == []
    assert data["kill"] == {
        "at_s": 90.0,
        "journaled": 150,
        "lost": [],
        "restart_s": 1.2,
        "orphans": 0,
    }
    assert data["sample_fields"] == list(SAMPLE_FIELDS)
    assert data["samples"] == [[1.0, 100.0, 110.0, 300.0, 350.0, 2]]


FOUND: list[tuple[dict[str, object], str]] = [
    ({"faults": {"timeout": {"beta": 2}, "crash": {"gamma": 1}}}, "fault: 3 charged to bots"),
    ({"gap": Gap(HANG_S + 1, 100.0)}, "hang: no game finished for 121 s"),
    ({"ledger": Ledger(10, ("ladder-000001/g1",), 10, "agrees")}, "doubled: 1 games"),
    ({"ledger": Ledger(10, (), None, "differs")}, "store: 10 games journaled"),
    ({"ledger": Ledger(10, (), 9, "9 games.")}, "store: 10 games journaled"),
    (
        {"kill": KillCheck(90.0, 5, ("ladder-000002/g3",), 1.0, 0)},
        "lost: 1 games (ladder-000002/g3)",
    ),
    ({"kill": KillCheck(90.0, 5, (), 1.0, 2)}, "orphans: 2 processes"),
    ({"tree": Memory(100.0, 100.0 * GROWTH_BOUND + 1, 200.0)}, "memory: the tree's grew"),
    ({"server": Memory(80.0, 130.0, 130.0)}, "memory: the server's grew 1.62x"),
    ({"server": None}, "memory: no reading of the server's"),
    ({"stopped": "exit 1 in 2.0 s: boom", "stop_clean": False}, "stop: exit 1"),
    ({"died": "exit -9: killed", "minutes": 2.0}, "server died: exit -9"),
    ({"minutes": 2.5}, "cut short: 2.5 of 3 minutes"),
    ({"rejected": {"rusty": "the build failed"}}, "rejected: rusty: the build failed"),
]


@pytest.mark.parametrize(("change", "finding"), FOUND)
def test_each_thing_found_fails_the_soak_with_a_line_naming_it(
    change: dict[str, object], finding: str
) -> None:
    figures = dataclasses.replace(_passing(), **change)  # type: ignore[arg-type]
    found = figures.findings()
    assert len(found) == 1 and found[0].startswith(finding), found
    assert f"FAIL {found[0]}" in figures.lines()
    assert figures.to_json()["passed"] is False


def test_growth_up_to_the_bound_and_a_gap_up_to_the_limit_pass() -> None:
    figures = dataclasses.replace(
        _passing(),
        tree=Memory(100.0, 100.0 * GROWTH_BOUND, 200.0),
        gap=Gap(HANG_S, 100.0),
    )
    assert figures.findings() == []


def test_faults_are_told_by_kind_and_bot() -> None:
    faults = {"timeout": {"beta": 2, "alpha": 1}, "crash": {"gamma": 1}}
    figures = dataclasses.replace(_passing(), faults=faults)
    assert "faults: crash: gamma 1; timeout: alpha 1, beta 2" in figures.lines()
    assert figures.to_json()["faults"] == faults
