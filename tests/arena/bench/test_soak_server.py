"""The server's log read as it grows: each event once, a line half written kept for its
end, and what is no event passed over (and told, when the process fell over)."""

from __future__ import annotations

import json
from pathlib import Path

from arena.bench.soak_server import EventLog


def _event(kind: str, **fields: object) -> str:
    return json.dumps({"time": "2025-01-02T03:04:05.250Z", "event": kind, "message": "", **fields})


def test_each_event_is_read_once_and_a_half_written_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "serve.log"
    listening = _event("listening", service="bots", address="127.0.0.1:5")
    game = _event("ladder_game", round="ladder-000000", game="g1")
    path.write_text(listening + "\nnot an event\n" + game[:20])
    log = EventLog(path)
    (first,) = log.events()
    assert (first.kind, first.fields["address"]) == ("listening", "127.0.0.1:5")
    assert first.at == 1735787045.25
    assert log.events() == []
    with path.open("a") as out:
        out.write(game[20:] + "\nTraceback: it fell over\n")
    (second,) = log.events()
    assert (second.kind, second.fields["game"]) == ("ladder_game", "g1")
    assert log.events() == []
    assert log.tail() == "Traceback: it fell over"
