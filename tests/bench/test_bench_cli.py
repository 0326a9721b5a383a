"""`arena bench BENCH`: one subcommand per bench, each with its own flags and one report shape."""

from __future__ import annotations

import pytest

from arena.cli.main import _parser, main
from bench.cli import BENCHES, Listed


def test_each_bench_is_a_subcommand_whose_help_lists_its_own_flags_only(
    capsys: pytest.CaptureFixture[str],
) -> None:
    helps = {}
    for each in BENCHES:
        with pytest.raises(SystemExit):
            _parser().parse_args(["bench", each.name, "--help"])
        helps[each.name] = capsys.readouterr().out
    assert "--json" in helps["flood"] and "--message-bytes" in helps["flood"]
    assert "--message-bytes" not in helps["timing"] and "--move-time" in helps["timing"]
    assert "--sandbox" in helps["speed"] and "--sandbox" not in helps["ladder"]
    assert "--kill" in helps["soak"] and "--kill" not in helps["speed"]
    with pytest.raises(SystemExit):
        _parser().parse_args(["bench", "--help"])
    listed = capsys.readouterr().out
    assert all(each.name in listed for each in BENCHES) and "--message-bytes" not in listed


def test_a_flag_of_another_bench_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["bench", "timing", "--kill"])
    assert exited.value.code == 2 and "--kill" in capsys.readouterr().err


def test_a_listed_report_reads_each_item_as_json_and_as_a_line() -> None:
    class Item:
        def __init__(self, n: int) -> None:
            self.n = n

        def to_json(self) -> dict[str, int]:
            return {"n": self.n}

    report = Listed([Item(1), Item(2)], ("head",), lambda item: f"item {item.n}")
    assert report.to_json() == [{"n": 1}, {"n": 2}]
    assert report.lines() == ["head", "item 1", "item 2"]
