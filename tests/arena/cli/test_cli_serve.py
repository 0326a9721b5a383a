"""`arena serve` tells the organiser who comes and goes, and how far away each bot is."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_harness import Serve, launch_bot, start_serve, wait_for

from arena.cli.main import _parser, main

LEAGUE_BOT = Path(__file__).parents[1] / "league_bots" / "steady.py"


@dataclasses.dataclass(frozen=True)
class Served:
    """One `arena serve` for the file's tests, which only read what it prints."""

    serve: Serve
    token: str
    """alpha's, the one registered entrant."""
    folder: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("serve")
    league = folder / "league.sqlite"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["token", "add", "alpha", "--league", str(league)]) == 0
    token = out.getvalue().strip().splitlines()[-1]
    processes: list[subprocess.Popen[bytes]] = []
    try:
        yield Served(
            start_serve(league, folder / "results", folder / "serve.log", processes), token, folder
        )
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=10)


def test_serve_prints_who_connects_and_who_leaves(
    served: Served, processes: list[subprocess.Popen[bytes]]
) -> None:
    serve = served.serve

    def said(text: str) -> bool:
        return any(line.endswith(text) for line in serve.log.read_text().splitlines())

    bot = launch_bot(
        LEAGUE_BOT, "alpha", served.token, serve.port, served.folder / "alpha.log", processes
    )
    # The bot opens two sessions, one after the other: its arrival counts both.
    wait_for(lambda: "alpha connected" in serve.log.read_text(), "serve says alpha connected", 20)
    assert said("alpha connected (2 sessions)"), serve.log.read_text()
    timed = "alpha: network round trip "
    wait_for(lambda: timed in serve.log.read_text(), "serve says alpha's round trip", 20)
    assert not said("alpha left (no session open)")
    bot.kill()
    bot.wait(timeout=10)
    wait_for(lambda: said("alpha left (no session open)"), "serve says alpha left", 20)
    # One arrival and one departure, however many sessions the bot opened.
    log = serve.log.read_text()
    assert log.count("alpha connected") == 1 and log.count("alpha left") == 1
    assert log.count(timed) == 1  # told once, for all its sessions


def test_serve_prints_one_line_for_a_wrong_token_and_one_for_an_unknown_name(
    served: Served, tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    serve = served.serve
    wrong = launch_bot(
        LEAGUE_BOT, "alpha", "not-its-token", serve.port, tmp_path / "w.log", processes
    )
    wrong.wait(timeout=30)
    unknown = launch_bot(LEAGUE_BOT, "ghost", "any", serve.port, tmp_path / "u.log", processes)
    unknown.wait(timeout=30)

    def refused() -> list[str]:
        return [x for x in serve.log.read_text().splitlines() if "refused" in x]

    wait_for(lambda: len(refused()) >= 2, "serve tells both refusals", 20)
    first, second = refused()  # one line each, though the bot's two sessions were refused
    assert "(bot 'alpha')" in first and "wrong token for bot 'alpha'" in first, first
    assert "(bot 'ghost')" in second and "no bot named 'ghost' is registered here" in second


def test_the_ladder_takes_one_table_size_or_several_smallest_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    def sizes(text: str) -> tuple[int, ...]:
        return tuple(_parser().parse_args(["serve", "--ladder-table-size", text]).ladder_table_size)

    assert sizes("3") == (3,) and sizes("4, 2,3") == (2, 3, 4)
    assert _parser().parse_args(["serve"]).ladder_table_size == (3,)
    for bad, says in [
        ("1", "must be 2..100, not 1"),
        ("2,2", "each table size once"),
        ("2;3", "2;3"),
    ]:
        with pytest.raises(SystemExit):
            _parser().parse_args(["serve", "--ladder-table-size", bad])
        assert says in capsys.readouterr().err
