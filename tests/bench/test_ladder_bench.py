"""`arena bench ladder`: a tiny run of it gives figures that add up (no speed asserted)."""

from __future__ import annotations

import json

import pytest

from arena.cli.main import main
from bench.ladder import DESIGNS, LADDERS, TABLE, choose_ms, noises, report, run_ladder


def test_a_tiny_run_reports_sane_figures() -> None:
    said: list[str] = []
    figures = run_ladder(2, 1, said.append, bots=4, cap_units=8)
    assert len(said) == 2 and all(d in said[1] for d in DESIGNS)
    cap = 8 * 4 * TABLE  # eight units of every table of 3 of 4, in every rotation
    assert figures.cap == cap
    assert set(figures.designs) == set(DESIGNS)
    for design, leagues in figures.designs.items():
        assert len(leagues) == 2
        for league in leagues:
            assert league.games is None or TABLE <= league.games <= cap
            assert league.games is None or league.games % TABLE == 0  # whole rotation groups
            assert 0 < league.least_share <= 1
            assert (sum(league.reasons.values()) > 0) == (design in LADDERS)
    assert any(x.games is not None for leagues in figures.designs.values() for x in leagues)
    assert set(figures.ratios) == set(LADDERS)
    for ratio in figures.ratios.values():
        assert 0 < ratio.low <= ratio.mean <= ratio.high
    assert figures.choose_ms > 0
    data = json.loads(json.dumps(figures.to_json()))
    for key in ("round_robin", "ladder_trueskill", "ladder_batch_fit"):
        games = data[key]["games"]
        assert data[key]["sure"] == sum(g is not None for g in games)
        assert data[key]["right"] <= data[key]["sure"]
    assert set(data["ratios"]) == {"ladder_trueskill", "ladder_batch_fit"}
    assert data["noises"] == [0.0, 0.333, 0.667, 1.0]
    text = "\n".join(report(figures))
    assert "ladder, batch fit / round robin games" in text and "order then true" in text


def test_the_field_is_graded_from_no_noise_to_all() -> None:
    assert noises(8)[0] == 0.0 and noises(8)[-1] == 1.0
    assert list(noises(8)) == sorted(noises(8))


def test_choosing_is_timed_on_a_field_of_the_size_asked() -> None:
    assert choose_ms(20, 5) > 0


def _bench(capsys: pytest.CaptureFixture[str], *flags: str) -> tuple[int, str, str]:
    """`arena bench FLAGS` through the command line's main() in this process."""
    try:
        code = main(["bench", *flags])
    except SystemExit as refused:  # argparse's way out
        code = refused.code if isinstance(refused.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def test_the_command_prints_the_figures_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    """The command's whole path, two workers and all, at its smallest: four bots, two
    leagues."""
    code, out, err = _bench(capsys, "ladder", "--json", "--leagues", "2", "--bots", "4")
    assert code == 0, err
    figures = json.loads(out)
    assert figures["bots"] == 4 and figures["leagues"] == 2
    assert len(figures["ladder_batch_fit"]["games"]) == len(figures["round_robin"]["games"]) == 2
    assert "league 2 of 2" in err


def test_a_field_the_bench_cannot_play_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = _bench(capsys, "ladder", "--bots", "40")
    assert code != 0
    assert "--bots" in err and "Traceback" not in err
