"""`arena admin final status`: how the season's final stands, its standings with their
intervals once over, and whether submissions are closed."""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_harness import Cli, one_line, start_serve
from rich.console import Console

from arena.cli.final_admin import final_action
from arena.protocol.messages import admin as apb


class _Stub:
    def __init__(self, reply: apb.FinalStatus) -> None:
        self.reply = reply

    async def GetFinal(self, request: Any, **_: Any) -> apb.FinalStatus:  # noqa: N802
        return self.reply


def _said(reply: apb.FinalStatus) -> str:
    out = io.StringIO()
    args = argparse.Namespace(target="status")
    code = asyncio.run(final_action(_Stub(reply), [], args, Console(file=out, width=200)))  # type: ignore[arg-type]
    assert code == 0
    return out.getvalue()


def test_no_final_yet() -> None:
    said = _said(apb.FinalStatus())
    assert said.strip() == "No final has been played here; submissions are open."


def test_a_finished_final_shows_its_standings_with_their_intervals() -> None:
    reply = apb.FinalStatus(
        state="finished",
        frozen_at=0.0,
        tournament="final-season-1",
        level=0.95,
        outcome="The ranking is known at 95%.",
    )
    reply.entrants.add(
        name="[red]bob[/red]",
        version=2,
        strength=0.61,
        low=0.42,
        high=0.8,
        rank_low=1,
        rank_high=1,
        games=40,
        wins=25,
    )
    reply.entrants.add(name="alice", version=1, games=0)  # never fitted: no interval
    said = _said(reply)
    assert said.splitlines()[0] == (
        "The season's final (final-season-1) is finished; submissions closed at "
        "1970-01-01 00:00:00 UTC and are open now."
    )
    assert "Final standings (batch fit) (95% intervals)" in said
    bob = next(line for line in said.splitlines() if "bob" in line)
    assert "[red]bob[/red]" in bob  # an author's name, never markup
    for cell in ("v2", "0.61", "0.42 .. 0.80", "1-1", "40", "25"):
        assert cell in bob


def test_a_final_under_way_says_submissions_are_closed() -> None:
    reply = apb.FinalStatus(state="playing", submissions_closed=True, tournament="final-x")
    reply.entrants.add(name="alice", version=3)
    said = _said(reply)
    assert "is playing" in said and "are closed now" in said
    assert "Field" in said


def test_an_unknown_action_is_refused_with_the_actions_it_takes(cli: Cli) -> None:
    with pytest.raises(SystemExit) as refused:
        cli("admin", "final", "begin")
    assert refused.value.code == 2
    said = one_line(cli.capsys.readouterr().err)
    assert "invalid choice: 'begin' (choose from 'start', 'status')" in said


def test_final_on_a_real_server_refuses_too_few_entrants_and_says_none_was_played(
    tmp_path: Path, cli: Cli, processes: list[subprocess.Popen[bytes]]
) -> None:
    league = tmp_path / "league" / "league.sqlite"
    serve = start_serve(league, tmp_path / "results", tmp_path / "serve.log", processes)
    code, _, err = cli("admin", "final", "start", *serve.admin, "--top", "3")
    assert code == 1
    assert "FAILED_PRECONDITION: a final needs at least two entrants" in one_line(err)
    assert "Traceback" not in err
    code, out, _ = cli("admin", "final", "status", *serve.admin)
    assert code == 0
    assert one_line(out) == "No final has been played here; submissions are open."
