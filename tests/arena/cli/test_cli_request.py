"""`arena request` against a real `arena serve`: a refusal in one line that says why (a
token the server does not know, an author with no version, too many games), and the
organiser's quota said at the start, and `arena admin requests`."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_harness import Cli, Serve, start_serve

from arena.cli.main import main
from arena.cli.request import outcome_lines
from arena.protocol.messages import submission as spb
from arena.store import open_store


@dataclasses.dataclass(frozen=True)
class Served:
    """One `arena serve` for the file: alice registered, a quota of 3 requests of 4 games."""

    serve: Serve
    league: Path
    token: Path
    """alice's token file."""


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("request")
    league = folder / "league.sqlite"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["token", "add", "alice", "--league", str(league)]) == 0
    token = folder / "alice.token"
    token.write_text(out.getvalue().strip().splitlines()[-1] + "\n")
    processes: list[subprocess.Popen[bytes]] = []
    try:
        serve = start_serve(
            league,
            folder / "results",
            folder / "serve.log",
            processes,
            *("--requests-per-day", "3", "--request-max-games", "4"),
        )
        yield Served(serve, league, token)
    finally:
        for process in processes:
            process.kill()
            process.wait(timeout=10)


def test_request_says_why_it_is_refused(served: Served, tmp_path: Path, cli: Cli) -> None:
    serve, token = served.serve, served.token
    wrong = tmp_path / "wrong.token"
    wrong.write_text("not-a-token\n")
    assert "test games: at most 3 requests a day per author, 4 games each" in serve.log.read_text()
    server = f"127.0.0.1:{serve.port}"
    ask = ("request", "--server", server, "--name", "alice", "--against", "bob")

    code, out, _ = cli(*ask, "--token-file", str(wrong))
    assert code == 1
    assert out.strip().startswith("refused: the league server knows no entrant 'alice'")

    code, out, _ = cli(*ask, "--token-file", str(token))
    assert code == 1
    assert out.strip() == "refused: you have no accepted version that plays: submit one first"

    code, out, _ = cli(*ask, "--token-file", str(token), "--games", "5")
    assert code == 1
    assert out.strip() == "refused: ask for 1 to 4 games (--request-max-games), not 5"


def test_the_organiser_lists_the_requests(served: Served, cli: Cli) -> None:
    """Refused requests are not kept: the list is empty until one is."""
    serve = served.serve
    code, out, _ = cli("admin", "requests", *serve.admin)
    assert (code, out.strip()) == (0, "No requests for test games.")
    store = open_store(served.league)  # a request as the server keeps one (its versions are gone)
    try:
        store.add_request("alice", [("alice", 2), ("bob", 1)], 2, 1000.0)
    finally:
        store.close()
    code, out, _ = cli("admin", "requests", "--author", "alice", *serve.admin)
    (line,) = out.strip().splitlines()
    assert code == 0 and line.startswith("request-000001  alice ")
    assert "/2 games  alice@2, bob@1" in line
    code, out, _ = cli("admin", "requests", "--author", "bob", *serve.admin)
    assert out.strip() == "No requests for test games."


def test_the_outcome_says_places_scores_and_what_happened() -> None:
    game = spb.RequestedGame(game="g1", ranking=["bob", "alice"], replay="requests/r/g1.json")
    played = spb.RequestOutcome(
        accepted=True,
        id="request-000003",
        state="played",
        games=[game, game],
        scores=[spb.OpponentScore(opponent="bob@1", games=2, ahead=0)],
        places=[2, 2],
    )
    assert outcome_lines(played) == [
        "your places: 2, 2",
        "against bob@1: ahead in 0 of 2 games",
        "request-000003 played: 2 games, unranked",
    ]
    cut = spb.RequestOutcome(
        accepted=True, id="request-000004", state="interrupted", reason="stopped after 1 of 2"
    )
    assert outcome_lines(cut) == ["request-000004 interrupted: stopped after 1 of 2"]
    queued = spb.RequestOutcome(accepted=True, id="request-000005", state="queued")
    assert outcome_lines(queued) == [
        "request-000005 is queued; its outcome will be on your author page"
    ]
