"""The spectator's view: what a page is sent of a game, when, and what a late page gets."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

import engine
from arena.protocol.faults import FaultKind
from arena.records import Deal, Decision, FaultEvent, Replay, RoundEnd
from arena.referee.match import GameSpec
from arena.tournament.play.observer import Progress
from arena.tournament.play.tables import Watch
from arena.web import spectator as spectating
from arena.web import stream
from arena.web.spectator import Spectator, replay_events
from arena.web.stream import Subscriber

PLAYERS = ("ann", "ben", "cid")
HANDS = ((1, 2, 3, 4, 5), (6, 6, 6, 6, 6), (2, 2, 3, 3, 4))


def frames(data: bytes) -> list[dict[str, Any]]:
    """The messages of the server-sent events in `data`, in order (each event carries a list)."""
    events = [part for part in data.split(b"\n\n") if part.startswith(b"data: ")]
    return [message for event in events for message in json.loads(event[6:])]


def read(spectator: Spectator, subscriber: Subscriber) -> list[dict[str, Any]]:
    return frames(spectator.read(subscriber))


def tournament(root: Path, deals: str = "own") -> Path:
    folder = root / "t1"
    folder.mkdir(exist_ok=True)
    (folder / "tournament.json").write_text(json.dumps({"deals": deals}))
    return folder


def open_table(spectator: Spectator, root: Path, game: str = "g1", deals: str = "own") -> Watch:
    """A tournament with one table, dealt: what its match tells events to."""
    spectator.started(tournament(root, deals), list(PLAYERS), Progress(0, 3, 0.0, 0))
    tell = spectator.table_opened(GameSpec(game, PLAYERS, game, engine.Ruleset()))
    tell(Deal(1, 0, False, HANDS))
    return tell


def faces_in(messages: list[dict[str, Any]]) -> bool:
    """Whether any message carries a hand of the deal (as a list of its faces)."""
    text = json.dumps(messages)
    return any(json.dumps(list(hand)) in text for hand in HANDS)


def test_a_deal_is_sent_without_its_faces_and_the_end_reveals_them(tmp_path: Path) -> None:
    spectator = Spectator()
    page = spectator.subscribe()
    tell = open_table(spectator, tmp_path)
    tell(Decision(0, "bid 3 6", 12.5))
    during = read(spectator, page)
    assert not faces_in(during)
    deal = [m["event"] for m in during if m["kind"] == "table" and m["event"]["kind"] == "deal"]
    assert deal[0]["dice"] == [5, 5, 5]
    tell(Decision(1, "dudo", 3.0))
    tell(RoundEnd(engine.RoundEnd.DUDO, 7, 0, -1))
    (end,) = [m["event"] for m in read(spectator, page) if m["kind"] == "table"][-1:]
    assert end["kind"] == "end" and end["hands"] == [list(h) for h in HANDS]


def test_a_round_cut_short_by_a_fault_is_never_revealed_live(tmp_path: Path) -> None:
    spectator = Spectator()
    page = spectator.subscribe()
    tell = open_table(spectator, tmp_path)
    tell(FaultEvent(1, FaultKind.TIMEOUT, "no answer in 1 s", "x" * 999))
    tell(Deal(2, 0, False, ((4,) * 5, (), (5,) * 4)))
    messages = read(spectator, page)
    assert not faces_in(messages)
    (fault,) = [m for m in messages if m["kind"] == "fault"]
    assert fault["bot"] == "ben" and fault["fault"] == "timeout"
    assert len(fault["sent"]) == spectating.SENT_CHARS  # what it sent, cut to a line's worth
    assert not faces_in([spectator.snapshot()])


def test_a_late_page_is_sent_the_state_with_every_table_so_far(tmp_path: Path) -> None:
    spectator = Spectator()
    tell = open_table(spectator, tmp_path)
    tell(Decision(0, "bid 2 3", 1.0))
    late = spectator.subscribe()
    (first,) = read(spectator, late)
    assert first["kind"] == "state" and first["tournament"] == "t1"
    (log,) = first["tables"]
    assert [e["kind"] for e in log] == ["open", "deal", "act"]
    assert not faces_in([first])
    tell(Decision(1, "bid 3 3", 1.0))
    assert [m["event"]["action"] for m in read(spectator, late)] == ["bid 3 3"]


def test_a_page_too_far_behind_is_sent_the_state_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(stream, "LOG_BYTES", 2000)
    spectator = Spectator()
    open_table(spectator, tmp_path)
    slow, quick = spectator.subscribe(), spectator.subscribe()
    read(spectator, slow)
    read(spectator, quick)
    for i in range(200):  # a tick each: the quick page reads every one, the slow one none
        spectator.note(f"note {i}")
        assert [m["text"] for m in read(spectator, quick)][-1:] == [f"note {i}"]
    messages = read(spectator, slow)
    assert [m["kind"] for m in messages] == ["state"]
    assert messages[0]["notes"][-1] == "note 199"
    spectator.note("after")
    assert [m["text"] for m in read(spectator, slow)] == ["after"]  # and on from there


def test_a_tick_is_one_event_of_every_message_encoded_once_for_all_pages(tmp_path: Path) -> None:
    spectator = Spectator()
    pages = [spectator.subscribe() for _ in range(100)]
    firsts = {id(page.first) for page in pages}
    assert len(firsts) == 1  # a hundred pages that come at once: one state encoded
    for page in pages:
        spectator.read(page)
    tell = open_table(spectator, tmp_path)
    for bid in ("bid 2 3", "bid 3 3", "dudo"):
        tell(Decision(0, bid, 1.0))
    sent = [spectator.read(page) for page in pages]
    assert all(data is sent[0] for data in sent)  # one piece of bytes, handed to every page
    assert sent[0].count(b"data: ") == 1  # the tick's messages in one event, in order
    actions = [m["event"].get("action") for m in frames(sent[0]) if m["kind"] == "table"]
    assert actions == [None, None, "bid 2 3", "bid 3 3", "dudo"]  # open, deal, then the bids
    assert spectator.read(pages[0]) == b""


def test_a_finished_game_moves_the_standings_and_closes_its_table(tmp_path: Path) -> None:
    from arena.records import GameLine
    from arena.tournament.report.ratings import rate_all, result_of

    spectator = Spectator()
    page = spectator.subscribe()
    tell = open_table(spectator, tmp_path)
    tell(Decision(0, "bid 3 6", 1.0))  # its last decisions, not yet taken in when it ends
    tell(Decision(1, "dudo", 1.0))
    tell(RoundEnd(engine.RoundEnd.DUDO, 7, 0, -1))
    line = GameLine("g1", 0, PLAYERS, ("ben", "ann", "cid"), (), {}, decisions=9)
    table = rate_all([result_of(line)], list(PLAYERS)).table()
    spectator.game_finished(line, table, Progress(1, 3, 0.0, 1))
    spectator.table_closed("g1")
    messages = read(spectator, page)
    kinds = [m["event"]["kind"] if m["kind"] == "table" else m["kind"] for m in messages]
    # In the order they happened: the last round, the standings it moved, the table's end.
    assert kinds[-8:] == ["open", "deal", "act", "act", "end", "game", "over", "closed"]
    state = spectator.snapshot()
    assert state["tables"] == [] and state["finished"][0]["ranking"][0] == "ben"
    assert state["standings"][0]["bot"] == "ben" and state["progress"]["done"] == 1


def test_a_replay_shows_every_deal_with_its_faces() -> None:
    replay = Replay(
        "g1",
        PLAYERS,
        engine.Ruleset(),
        ("ben", "ann", "cid"),
        (
            Deal(1, 0, False, HANDS),
            Decision(0, "dudo", 2.0),
            RoundEnd(engine.RoundEnd.DUDO, 1, 0, -1),
        ),
    )
    events = replay_events(replay)
    assert [e["kind"] for e in events] == ["open", "deal", "act", "end", "over"]
    assert events[1]["hands"] == [list(h) for h in HANDS]


def test_tables_of_shared_deals_show_no_bid_nor_die_and_their_replays_wait(tmp_path: Path) -> None:
    spectator = Spectator()
    page = spectator.subscribe()
    tell = open_table(spectator, tmp_path, deals="disjoint")
    tell(Decision(0, "bid 3 6", 12.5))
    tell(Decision(1, "dudo", 3.0))
    tell(RoundEnd(engine.RoundEnd.DUDO, 7, 0, -1))
    tell(FaultEvent(1, FaultKind.ILLEGAL_ACTION, "bid 2 2: too low", "x"))
    messages = read(spectator, page)
    events = [m["event"] for m in messages if m["kind"] == "table"]
    assert [e["kind"] for e in events] == ["open", "deal"] and events[0]["hidden"]
    assert not faces_in(messages) and "bid 3 6" not in json.dumps(messages)
    (fault,) = [m for m in messages if m["kind"] == "fault"]
    assert fault["bot"] == "ben" and fault["detail"] == "" and fault["sent"] == ""
    assert not spectator.replays_open  # games remain that may be dealt these dice


def test_a_tournament_that_cannot_be_read_is_taken_to_share_its_deals(tmp_path: Path) -> None:
    spectator = Spectator()
    spectator.started(tmp_path / "gone", list(PLAYERS), Progress(0, 3, 0.0, 0))
    assert spectator.shared_deals


def test_the_end_of_a_run_shows_its_board_with_the_fits_confidence(tmp_path: Path) -> None:
    from arena.records import GameLine
    from arena.tournament.report.standings import board
    from arena.tournament.report.summary import Summary

    spectator = Spectator()
    folder = tournament(tmp_path)
    spectator.started(folder, list(PLAYERS), Progress(0, 12, 0.0, 0))
    page = spectator.subscribe()
    read(spectator, page)
    lines = [  # ann ahead of ben ahead of cid, nearly always
        GameLine(f"u{i:03}-t000-r0", i, PLAYERS, order, (), {}, decisions=9)
        for i, order in enumerate([("ann", "ben", "cid")] * 10 + [("cid", "ben", "ann")] * 2)
    ]
    final = board([("t1", x) for x in lines], PLAYERS)
    spectator.ended(Summary(folder, "finished", final.table, 12, 12, None, board=final))
    (message,) = read(spectator, page)
    assert message["kind"] == "board" and message["separation"] == final.separation()
    rows = message["standings"]
    assert [r["bot"] for r in rows] == [s.name for s in final.table]
    for upper, lower in itertools.pairwise(rows):
        assert upper["p_above_next"] == round(final.sure.p_ahead(upper["bot"], lower["bot"]), 4)
    assert "p_above_next" not in rows[-1] and all("rank_range" in r for r in rows)
    late = spectator.snapshot()  # a page that comes now is shown the same
    assert late["board"] == {k: v for k, v in message.items() if k != "kind"}
    assert late["standings"] == rows
    spectator.started(folder, list(PLAYERS), Progress(0, 12, 0.0, 0))  # the next tournament
    assert spectator.snapshot()["board"] is None


ESCAPES = "\x1b[2J\x1b[Hall good \u202edeppots\u202c \x9b2J"
"""A bot's words that a terminal would obey, a browser turn around."""


def test_a_bots_words_reach_the_page_and_the_replay_escaped(tmp_path: Path) -> None:
    """Even from a record made before the referee escaped them (a replay of an older arena,
    or any way round the referee): the page's frames and the replays escape them again."""
    spectator = Spectator()
    page = spectator.subscribe()
    tell = open_table(spectator, tmp_path)
    spectator.note(f"rogue: skipped: {ESCAPES}")
    fault = FaultEvent(1, FaultKind.MALFORMED_MESSAGE, f"bad (the bot says: {ESCAPES})", ESCAPES)
    tell(fault)
    messages = read(spectator, page)
    shown = "\\x1b[2J\\x1b[Hall good \\u202edeppots\\u202c \\x9b2J"
    (note,) = [m for m in messages if m["kind"] == "note"]
    assert note["text"] == f"rogue: skipped: {shown}"
    (sent,) = [m for m in messages if m["kind"] == "fault"]
    assert sent["detail"] == f"bad (the bot says: {shown})" and sent["sent"] == shown
    replay = Replay("g1", PLAYERS, engine.Ruleset(), PLAYERS, (Deal(1, 0, False, HANDS), fault))
    (kept,) = [e for e in replay_events(replay) if e["kind"] == "fault"]
    assert kept["detail"] == f"bad (the bot says: {shown})" and kept["sent"] == shown
    for text in (json.dumps(messages, ensure_ascii=False), json.dumps(kept, ensure_ascii=False)):
        assert not any(raw in text for raw in ("\x1b", "\u202e", "\u202c", "\x9b"))


def test_a_ladder_rounds_tables_are_shown_live_beside_a_night_and_dice_only_at_the_reveal(
    tmp_path: Path,
) -> None:
    from arena.records import GameLine

    spectator = Spectator()
    page = spectator.subscribe()
    night = open_table(spectator, tmp_path)  # a night's table: the ladder's go beside it
    night(Decision(0, "bid 2 2", 1.0))
    rounds = [spectator.ladder_round(f"ladder-00000{n}") for n in (1, 2)]
    for number, each in enumerate(rounds, start=1):
        folder = tmp_path / f"ladder-00000{number}"
        folder.mkdir()
        (folder / "tournament.json").write_text(json.dumps({"deals": "own"}))
        each.started(folder, list(PLAYERS), Progress(0, 3, 0.0, 0))
    tells = [
        r.table_opened(GameSpec("u000-t000-r0", PLAYERS, "k", engine.Ruleset())) for r in rounds
    ]
    for tell in tells:
        tell(Deal(1, 0, False, HANDS))
        tell(Decision(0, "bid 3 6", 12.5))
    live = read(spectator, page)
    acts = [
        m["event"]["game"] for m in live if m["kind"] == "table" and m["event"]["kind"] == "act"
    ]
    assert acts == ["g1", "ladder-000001/u000-t000-r0", "ladder-000002/u000-t000-r0"]
    assert not faces_in(live)  # a bid live, its dice not yet
    state = spectator.snapshot()
    assert [log[0]["game"] for log in state["tables"]] == [
        "g1", "ladder-000001/u000-t000-r0", "ladder-000002/u000-t000-r0"
    ]  # fmt: skip
    tells[0](Decision(1, "dudo", 3.0))
    tells[0](RoundEnd(engine.RoundEnd.DUDO, 7, 0, -1))
    line = GameLine("u000-t000-r0", 0, PLAYERS, ("ben", "ann", "cid"), (), {})
    rounds[0].game_finished(line, [], Progress(1, 3, 0.0, 1))
    rounds[0].table_closed("u000-t000-r0")
    ended = [m["event"] if m["kind"] == "table" else m for m in read(spectator, page)]
    assert [e["kind"] for e in ended] == ["act", "end", "over", "closed"]
    assert ended[1]["hands"] == [list(h) for h in HANDS]  # at the reveal, and only then
    assert ended[2]["ranking"] == ["ben", "ann", "cid"]
    assert spectator.snapshot()["progress"]["done"] == 0  # a ladder game is no night's
    games = [log[0]["game"] for log in spectator.snapshot()["tables"]]
    assert games == ["g1", "ladder-000002/u000-t000-r0"]


def test_a_ladder_round_that_shares_its_deals_shows_no_bid_nor_die(tmp_path: Path) -> None:
    spectator = Spectator()
    page = spectator.subscribe()
    ladder = spectator.ladder_round("ladder-000001")
    ladder.started(tournament(tmp_path, "disjoint"), list(PLAYERS), Progress(0, 3, 0.0, 0))
    tell = ladder.table_opened(GameSpec("g1", PLAYERS, "k", engine.Ruleset()))
    tell(Deal(1, 0, False, HANDS))
    tell(Decision(0, "bid 3 6", 12.5))
    tell(RoundEnd(engine.RoundEnd.DUDO, 7, 0, -1))
    messages = read(spectator, page)
    assert not faces_in(messages)
    assert not [m for m in messages if m["kind"] == "table" and m["event"]["kind"] == "act"]


class _Ladder:
    """A ladder feed that has always changed since it was last looked at."""

    json: dict[str, Any] = {"running": True}

    def poll(self) -> bool:
        return True


def test_nothing_follows_the_goodbye_not_even_the_ladder() -> None:
    """The server's last flush looked at the ladder after its goodbye: a page read a ladder
    frame after `bye`."""
    spectator = Spectator()
    page = spectator.subscribe()
    spectator.follow_ladder(_Ladder())  # type: ignore[arg-type]
    spectator.flush()
    spectator.close()
    spectator.flush()  # as the web server's last tick does
    kinds = [m["kind"] for m in read(spectator, page)]
    assert "ladder" in kinds and kinds[-1] == "bye"
