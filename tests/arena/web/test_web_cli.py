"""The command line's web side: `arena replay --html`, and `--web` refusals in one line."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_harness import make_bots

import engine
from arena.cli.main import main
from arena.records import Deal, Decision, Replay, RoundEnd

HOSTILE = "</script><script>document.title='owned'</script>"


def write_replay(results: Path, game: str = "u000-t000-r0") -> Path:
    replay = Replay(
        game,
        ("ann", HOSTILE),
        engine.Ruleset(),
        (HOSTILE, "ann"),
        (
            Deal(1, 0, False, ((1, 2, 3, 4, 5), (6, 6, 2, 2, 3))),
            Decision(0, "bid 2 2", 4.0),
            Decision(1, "dudo", 6.0),
            RoundEnd(engine.RoundEnd.DUDO, 3, 1, -1),
        ),
        deal_key=game,
    )
    path = results / "t1" / "replays" / f"{game}.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(replay.to_json()))
    return path


@pytest.fixture
def taken_port() -> Iterator[int]:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        yield taken.getsockname()[1]
    finally:
        taken.close()


def test_replay_html_writes_a_page_that_holds_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_replay(tmp_path / "results")
    out = tmp_path / "game.html"
    code = main(
        ["replay", "u000-t000-r0", "--results", str(tmp_path / "results"), "--html", str(out)]
    )
    assert code == 0, capsys.readouterr()
    page = out.read_text()
    assert "u000-t000-r0" in page and "Perudo.fold" in page  # the game and the renderer, inline
    assert HOSTILE not in page  # a bot's name cannot end the script that holds it
    assert "<script src" not in page and 'rel="stylesheet"' not in page  # opens from disk


def test_an_unknown_game_is_one_line_and_nothing_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_replay(tmp_path / "results")
    out = tmp_path / "game.html"
    code = main(["replay", "nosuch", "--results", str(tmp_path / "results"), "--html", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and err.count("\n") == 1 and "no replay of game 'nosuch'" in err
    assert not out.exists()


def test_a_file_that_is_not_a_replay_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for text in ("{not json", json.dumps({"game": 3}), json.dumps([1, 2])):
        bogus = tmp_path / "bogus.json"
        bogus.write_text(text)
        out = tmp_path / "game.html"
        code = main(["replay", str(bogus), "--html", str(out)])
        err = capsys.readouterr().err
        assert code == 1 and err.count("\n") == 1 and "is not a replay" in err, err
        assert not out.exists()


def test_a_web_port_in_use_stops_the_run_before_it_starts(
    tmp_path: Path, taken_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `arena run`'s main() in this process: the refusal comes before any bot."""
    bots = make_bots(tmp_path / "bots", {"ann": {}, "ben": {}})
    out = tmp_path / "results"
    code = main(["run", "--bots", str(bots), "--out", str(out), "--web", f"127.0.0.1:{taken_port}"])
    assert code == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and f"cannot serve the web page on 127.0.0.1:{taken_port}" in lines[0]
    assert not out.exists() or not any(out.iterdir())  # no tournament begun, no bot started


def test_a_web_port_in_use_stops_the_league_server_before_it_listens(
    tmp_path: Path, taken_port: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through `arena serve`'s main() in this process: refused before it serves anything."""
    league = tmp_path / "league.sqlite"
    code = main(
        [
            *("serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"),
            *("--league", str(league), "--web", f"127.0.0.1:{taken_port}"),
        ]
    )
    assert code == 1
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "cannot serve the web page" in lines[0], err
    assert not league.with_name("admin.token").exists()


def test_a_web_address_that_is_no_address_is_refused_as_the_command_line_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["run", "--bots", str(tmp_path), "--web", "localhost:http"])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--web" in err and "port must be a number" in err
