"""No die reaches a spectator before its round ends: every event a page received during a
real tournament, checked against the replays the tournament wrote."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from web_harness import WAIT_S, Stream, make_bots, results_folder, running

from arena.records import Deal, Decision, FaultEvent, Replay, RoundEnd
from arena.web.replay_page import read_replay


def keys_everywhere(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """Every (path, value) of a key in a JSON value, however deep."""
    found: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        for key, inner in value.items():
            found.append((f"{path}/{key}", inner))
            found += keys_everywhere(inner, f"{path}/{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            found += keys_everywhere(inner, f"{path}/{i}")
    return found


def table_logs(messages: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each game's public events in the order the page received them (first state included)."""
    logs: dict[str, list[dict[str, Any]]] = {}
    for message in messages:
        if message["kind"] == "state":
            for log in message["tables"]:
                game = log[0]["game"]
                if len(log) > len(logs.get(game, [])):
                    logs[game] = list(log)
        elif message["kind"] == "table":
            event = message["event"]
            logs.setdefault(event["game"], []).append(event)
    return logs


def check_against(replay: Replay, log: list[dict[str, Any]]) -> int:
    """The page's events of one game match its replay one for one; dice only in round ends,
    and exactly the round's own. Returns how many rounds the page was shown the dice of."""
    played = [e for e in log if e["kind"] not in {"open", "over"}]
    start = len(replay.events) - len(played)  # a page that arrived late saw the rest
    assert start >= 0 and (start == 0 or log[0]["kind"] != "open")
    revealed = 0
    deal: Deal | None = None
    for event in replay.events[:start]:
        deal = event if isinstance(event, Deal) else deal
    for event, seen in zip(replay.events[start:], played, strict=True):
        kind = {Deal: "deal", Decision: "act", FaultEvent: "fault", RoundEnd: "end"}[type(event)]
        assert seen["kind"] == kind, (event, seen)
        if isinstance(event, Deal):
            deal = event
            assert "hands" not in seen and seen["dice"] == [len(h) for h in event.hands]
        elif isinstance(event, RoundEnd):
            assert deal is not None
            assert seen["hands"] == [list(h) for h in deal.hands]  # its own round's dice
            assert seen["counted"] == event.counted
            revealed += 1
        else:
            assert "hands" not in seen
    return revealed


@pytest.mark.slow
def test_no_die_is_sent_before_its_round_ends(tmp_path: Path) -> None:
    bots = make_bots(
        tmp_path / "bots",
        {
            "ann": {"BOT_MODE": "slow", "BOT_SLEEP": "0.005"},
            "ben": {"BOT_MODE": "slow", "BOT_SLEEP": "0.005"},
            "cid": {"BOT_MODE": "illegal", "BOT_AT": "4"},  # a fault cuts a round short
        },
    )
    out = tmp_path / "results"
    args = ["run", "--bots", str(bots), "--games", "6", "--out", str(out), "--sandbox", "off"]
    with running([*args, "--web", "127.0.0.1:0"]) as run:
        stream = Stream(run.url())
        assert run.wait() == 0, run.output
        assert stream.ended.wait(WAIT_S), "the stream did not end with the run"
    messages = stream.messages
    assert messages and messages[0]["kind"] == "state"
    for message in messages:
        for path, value in keys_everywhere(message):
            if path.endswith("/hands"):  # dice travel in a round's end, and nowhere else
                assert message["kind"] == "table" and message["event"]["kind"] == "end", path
                assert isinstance(value, list)
    folder = results_folder(out)
    logs = table_logs(messages)
    replays = {p.stem: read_replay(p) for p in (folder / "replays").glob("*.json")}
    assert len(replays) == 6 and set(logs) <= set(replays)
    revealed = sum(check_against(replays[game], log) for game, log in logs.items())
    faults = sum(e["kind"] == "fault" for log in logs.values() for e in log)
    assert revealed > 0 and faults > 0  # both ways a round ends were watched
