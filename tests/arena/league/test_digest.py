"""The readable screen's digest: a ladder's games one summary line a minute, a ladder note said
once an hour whatever round says it, a bot's comings and goings once in ten minutes, a verdict
framed."""

from __future__ import annotations

from arena.league.digest import Digest
from arena.league.screen import Kind, ScreenEvent


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def ladder_game(number: int, first: str) -> ScreenEvent:
    fields = {"round": f"ladder-{number // 3:06d}", "game": "g", "ranking": [first, "x"]}
    return ScreenEvent(Kind.LADDER_GAME, f"ladder g: {first}, x", fields)


def test_a_minute_of_ladder_is_one_line_and_a_note_is_said_once() -> None:
    said: list[ScreenEvent] = []
    clock = Clock()
    digest = Digest(said.append, 60.0, clock)
    for number in range(90):  # 30 rounds of 3 games, each saying the same notes
        if number % 3 == 0:
            digest(ScreenEvent(Kind.NOTE, f"ladder: sandbox: bubblewrap (ladder-{number:06d})"))
            digest(ScreenEvent(Kind.NOTE, "ladder: alpha: unchanged since its last build"))
        digest(ladder_game(number, "gamma" if number % 2 else "alpha"))
        clock.now += 0.5
    assert [e.text for e in said] == [
        "ladder: sandbox: bubblewrap (ladder-000000)",
        "ladder: alpha: unchanged since its last build",
    ]
    digest.tick()  # 45 s: not a minute yet
    assert len(said) == 2
    clock.now += 20
    digest.tick()
    (summary,) = said[2:]
    assert summary.kind is Kind.SUMMARY
    assert "ladder 30 rounds, 90 games" in summary.text
    assert "first place: alpha 45, gamma 45" in summary.text
    assert "58 ladder notes said before" in summary.text
    clock.now += 120
    digest.tick()  # nothing held back: no line
    assert len(said) == 3
    clock.now += 3600
    digest(ScreenEvent(Kind.NOTE, "ladder: alpha: unchanged since its last build"))
    assert said[-1].text == "ladder: alpha: unchanged since its last build"  # an hour on


def test_a_bot_that_comes_and_goes_each_round_is_said_once_in_ten_minutes() -> None:
    said: list[ScreenEvent] = []
    clock = Clock()
    digest = Digest(said.append, 60.0, clock)
    for _ in range(20):
        digest(ScreenEvent(Kind.CONNECT, "alpha connected (1 session)", {"bot": "alpha"}))
        trip = {"bot": "alpha", "round_trip_ms": 0.4}
        digest(ScreenEvent(Kind.NOTE, "alpha: network round trip 0.4 ms", trip))
        digest(ScreenEvent(Kind.DISCONNECT, "alpha left (no session open)", {"bot": "alpha"}))
        digest(ScreenEvent(Kind.CONNECT, "beta connected (1 session)", {"bot": "beta"}))
        clock.now += 1
    assert [e.text.split()[0] for e in said] == ["alpha", "alpha:", "alpha", "beta"]
    clock.now += 60
    digest(ScreenEvent(Kind.DISCONNECT, "alpha left (no session open)", {"bot": "alpha"}))
    assert said[-1].kind is Kind.SUMMARY  # of the 80, 4 said; the one just now comes next
    assert "76 lines of bots coming and going not repeated (alpha 57, beta 19)" in said[-1].text
    flood = {"bot": "alpha", "why": "a flood of stray messages"}
    digest(ScreenEvent(Kind.DISCONNECT, "alpha left (no session open: a flood)", flood))
    assert said[-1].fields == flood  # the referee closed it: news, said at once
    clock.now += 600
    digest(ScreenEvent(Kind.DISCONNECT, "alpha left (no session open)", {"bot": "alpha"}))
    assert said[-1].text == "alpha left (no session open)"  # ten minutes on: said again


def test_everything_else_passes_and_a_verdict_stands_out() -> None:
    said: list[ScreenEvent] = []
    digest = Digest(said.append, 60.0, Clock())
    events = [
        ScreenEvent(Kind.SUBMISSION, "alpha: sent 4 KiB, building"),
        ScreenEvent(Kind.SUBMISSION, "alpha: accepted as version 2 of alpha"),
        ScreenEvent(Kind.SUBMISSION, "beta: rejected: its build failed"),
        ScreenEvent(Kind.NOTE, "Live page: http://127.0.0.1:8000/"),
        ScreenEvent(Kind.NOTE, "Live page: http://127.0.0.1:8000/"),  # not the ladder's
        ScreenEvent(Kind.GAME_END, "game g1 ended: a > b"),
    ]
    for event in events:
        digest(event)
    assert said == events
    lines = [e.screen_line()[9:] for e in said[:3]]
    assert lines == [
        "alpha: sent 4 KiB, building",
        "==== VERDICT alpha: accepted as version 2 of alpha ====",
        "==== VERDICT beta: rejected: its build failed ====",
    ]
