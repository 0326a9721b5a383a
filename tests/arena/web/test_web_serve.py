"""`arena serve --web`: the page follows the tournament that `arena admin start` begins."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from web_harness import WAIT_S, Stream, arena_command, make_bots


@pytest.mark.slow
def test_the_league_servers_page_follows_an_admin_started_tournament(tmp_path: Path) -> None:
    league = tmp_path / "league.sqlite"
    log = tmp_path / "serve.log"
    command = arena_command(
        *("serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--league", str(league)),
        *("--out", str(tmp_path / "results"), "--web", "127.0.0.1:0"),
    )
    with log.open("w") as out:
        serve = subprocess.Popen(command, stdout=out, stderr=out, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + WAIT_S
        while not (
            re.search(r"Live page: (\S+)", log.read_text()) and "Admin on" in log.read_text()
        ):
            assert serve.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        text = log.read_text()
        url = re.search(r"Live page: (\S+)", text)[1]  # type: ignore[index]
        admin = re.search(r"Admin on (\S+);", text)[1]  # type: ignore[index]
        stream = Stream(url)
        bots = make_bots(tmp_path / "bots", {"ann": {}, "ben": {}, "cid": {}})
        started = subprocess.run(
            arena_command(
                *("admin", "start", "--admin", admin, "--league", str(league)),
                *("--bots", str(bots), "--games", "3", "--name", "night", "--sandbox", "off"),
            ),
            capture_output=True,
            text=True,
            timeout=WAIT_S,
            check=False,
        )
        assert started.returncode == 0, started.stdout + started.stderr
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.wait(WAIT_S)
    assert stream.ended.wait(WAIT_S)
    kinds = [m["kind"] for m in stream.messages]
    states = [m for m in stream.messages if m["kind"] == "state"]
    assert states[0]["tournament"] == ""  # before: nothing to show yet
    assert any(s["tournament"] == "night" for s in states)  # the tournament's start
    assert kinds.count("game") == 3 and "table" in kinds
    last = [m for m in stream.messages if m["kind"] == "game"][-1]
    assert last["progress"]["done"] == 3 and len(last["standings"]) == 3
    (board,) = [m for m in stream.messages if m["kind"] == "board"]  # the tournament's end
    assert {r["bot"] for r in board["standings"]} == {"ann", "ben", "cid"}
    assert all("rank_range" in r for r in board["standings"]) and board["separation"]
    assert kinds.index("board") > kinds.index("game") and kinds[-1] == "bye"
    html = tmp_path / "results" / "night" / "html"  # and the replays, as arena run writes them
    assert (html / "index.html").exists() and len(list(html.glob("u*.html"))) == 3
