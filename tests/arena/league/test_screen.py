"""The league server's events as lines: JSON with a time for every kind, a bot's text shown and
never obeyed, whole lines from several threads, and refusals told once a minute per address."""

from __future__ import annotations

import io
import json
import threading

import grpc

from arena.league.narrator import Refusals
from arena.league.screen import Kind, LineWriter, ScreenEvent
from arena.referee.service.referee_server import Refusal

HOSTILE = "bot\x1b[2J\u202e\n{}"


def test_every_kind_is_one_json_line_with_its_time_and_printable_fields() -> None:
    at = 1_700_000_000.25
    for kind in Kind:
        event = ScreenEvent(kind, f"said {HOSTILE}", {"bot": HOSTILE, "names": [HOSTILE]}, at)
        line = event.json_line()
        assert "\n" not in line and line.isascii()
        data = json.loads(line)
        assert data["time"] == "2023-11-14T22:13:20.250Z"
        assert data["event"] == kind.value
        for shown in (data["message"], data["bot"], *data["names"]):
            assert shown.isprintable() and "\\x1b" in shown and "\\u202e" in shown
        screen = event.screen_line()
        assert screen.isprintable() and screen.endswith("said bot\\x1b[2J\\u202e\\n{}")


def test_an_events_own_keys_are_not_overwritten_by_its_fields() -> None:
    data = json.loads(ScreenEvent(Kind.NOTE, "hi", {"event": "forged", "time": "0"}).json_line())
    assert data["event"] == "note" and data["time"] != "0"


def test_lines_told_from_several_threads_stay_whole() -> None:
    out = io.StringIO()
    writer = LineWriter(out, as_json=True)

    def tell(n: int) -> None:
        for i in range(200):
            writer(ScreenEvent(Kind.NOTE, f"{n}-{i}" * 50))

    threads = [threading.Thread(target=tell, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    lines = out.getvalue().splitlines()
    assert len(lines) == 800 and all(json.loads(line)["event"] == "note" for line in lines)


def test_refusals_are_told_once_a_minute_per_address_and_kind_with_a_count() -> None:
    told: list[ScreenEvent] = []
    now = [100.0]
    refusals = Refusals(told.append, every_s=60.0, clock=lambda: now[0])
    wrong = Refusal("ipv4:10.0.0.1", "eve", grpc.StatusCode.UNAUTHENTICATED, "wrong token")
    for _ in range(5):
        refusals(wrong)
    refusals(Refusal("ipv4:10.0.0.2", "", grpc.StatusCode.DEADLINE_EXCEEDED, "no Hello"))
    assert [e.fields["peer"] for e in told] == ["ipv4:10.0.0.1", "ipv4:10.0.0.2"]
    assert told[0].fields["code"] == "UNAUTHENTICATED" and told[0].fields["repeats"] == 0
    now[0] += 59.0
    refusals(wrong)
    assert len(told) == 2
    now[0] += 1.0
    refusals(wrong)
    assert told[-1].fields["repeats"] == 5
    assert "(5 more like it since it was last said)" in told[-1].text


def test_refusals_from_one_ipv6_64_are_one_count_and_a_long_name_is_cut() -> None:
    """A client that takes a new address of its /64 for each try is still one stranger, and
    the name it sends is shown cut (issue 35: 300 refusals wrote 17.6 MiB)."""
    told: list[ScreenEvent] = []
    refusals = Refusals(told.append, every_s=60.0, clock=lambda: 100.0)
    code = grpc.StatusCode.UNAUTHENTICATED
    for n in range(300):
        refusals(Refusal(f"ipv6:[2001:db8:1:2::{n + 1:x}]", "m" * 30_000, code, "wrong token"))
    [said] = told
    assert said.fields["peer"] == "ipv6:[2001:db8:1:2::/64]"
    assert len(said.text) < 300 and "(30000 characters)" in said.text
    assert said.fields["bot"] == "m" * 64
