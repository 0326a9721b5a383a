"""The live page and an HTML replay in a real browser: Debian's chromium, driven by Playwright.

The live page is laid out at 1280x900 and on a 390 px phone, and measured there
(`web_harness.layout_problems`). Screenshots go to $ARENA_SCREENSHOTS when it is
set (CI keeps them with the run's results), else to the test's own temporary
folder; the test prints where.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from web_harness import (
    fits_both,
    layout_problems,
    make_bots,
    results_folder,
    running,
    screenshots,
)

import engine
from arena.protocol.faults import FaultKind
from arena.records import Deal, FaultEvent, Replay
from arena.web.replay_page import replay_html

WAIT_MS = 90_000
"""The most the page is given to show what it must (a generous limit, not a guess)."""

pytestmark = pytest.mark.slow


SCREEN = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}


def done_count(page: object) -> int:
    return int(page.inner_text("#done").split(" / ")[0])  # type: ignore[attr-defined]


def stream_codings(page: object, url: str) -> list[str]:
    """The Content-Encoding of each event stream the page opens, as the browser took it."""
    codings: list[str] = []
    page.on(  # type: ignore[attr-defined]
        "response",
        lambda r: (
            codings.append(r.headers.get("content-encoding", ""))
            if r.url == url + "events"
            else None
        ),
    )
    return codings


def check_final_board(page: Any) -> None:
    """The run's end: its final board, with the batch fit's confidence as the terminal has it."""
    page.wait_for_selector("#standings th.sure", timeout=WAIT_MS)
    headers = page.locator("#standings thead th").all_inner_texts()
    assert headers[:8] == ["#", "bot", "rating", "mu", "sigma", "ranks", "P1", "above next"]
    assert page.locator("#standings tbody tr").count() == 3
    above = page.locator("#standings td.above").all_inner_texts()
    assert [a.endswith("%") for a in above] == [True, True, False]  # the last has no next
    ranks = page.locator("#standings td.ranks").all_inner_texts()
    assert all(r.replace("-", "").isdigit() for r in ranks)
    separation = page.inner_text("#separation")  # a verdict, or why a small night has none
    assert "separated at 95%" in separation or "fewer than the 10 a bootstrap needs" in separation
    assert layout_problems(page) == []  # the final board's columns fit: none scrolled away


def test_the_live_page_follows_a_real_tournament(browser: object, tmp_path: Path) -> None:
    slow = {"BOT_MODE": "slow", "BOT_SLEEP": "0.02"}  # a table stays in play long enough to see
    bots = make_bots(
        tmp_path / "bots",
        {"ann": slow, "ben": slow, "cid": {"BOT_MODE": "illegal", "BOT_AT": "3"}},
    )
    out = tmp_path / "results"
    args = ["run", "--bots", str(bots), "--games", "12", "--jobs", "1", "--out", str(out)]
    with running([*args, "--sandbox", "off", "--web", "127.0.0.1:0"]) as run:
        url = run.url()
        page = browser.new_page(viewport=SCREEN)  # type: ignore[attr-defined]
        errors: list[str] = []
        elsewhere: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on(
            "request",
            lambda r: None if r.url.startswith((url, "data:")) else elsewhere.append(r.url),
        )
        codings = stream_codings(page, url)
        page.goto(url)
        page.wait_for_selector(
            ".table .seat.to-act", timeout=WAIT_MS
        )  # a table in play, a bot to act
        page.wait_for_selector(".table .bids li", timeout=WAIT_MS)  # its bids as they are made
        page.wait_for_selector("#standings tbody tr", timeout=WAIT_MS)  # a game finished
        first = done_count(page)
        link = page.locator("#finished li a").first  # read at once: the list moves on
        game, href = link.evaluate("a => [a.textContent, a.getAttribute('href')]")
        replay = browser.new_page()  # type: ignore[attr-defined]
        replay.goto(url + href)
        assert game in replay.inner_text("#title")  # its replay, from the server
        assert page.locator("#standings tbody tr").count() == 3
        assert page.locator("#standings th.sure").count() == 0  # no confidence before the end
        assert page.locator("#finished li a").count() >= 1
        page.wait_for_selector("#faults li", timeout=WAIT_MS)
        assert "illegal" in page.inner_text("#faults")
        page.wait_for_function(
            f"Number(document.getElementById('done').textContent.split(' / ')[0]) > {first}",
            timeout=WAIT_MS,
        )  # and it goes on updating, with no reload
        page.wait_for_selector(".table .seat", timeout=WAIT_MS)
        assert layout_problems(page) == []  # a fault's words, too, stay in their panel
        page.screenshot(path=str(screenshots(tmp_path) / "live.png"), full_page=True)
        phone = browser.new_page(viewport=PHONE)  # type: ignore[attr-defined]
        phone.goto(url)
        phone.wait_for_selector("#standings tbody tr", timeout=WAIT_MS)
        assert layout_problems(phone) == []
        phone.screenshot(path=str(screenshots(tmp_path) / "live-phone.png"))
        assert run.wait() == 0, run.output
        check_final_board(page)
        page.wait_for_function(  # told the server stopped: it stays, and does not reconnect
            "document.getElementById('link').textContent === 'ended'", timeout=WAIT_MS
        )
        page.screenshot(path=str(screenshots(tmp_path) / "live-end.png"), full_page=True)
        assert not errors and not elsewhere  # no script error, nothing fetched from elsewhere
        assert codings and set(codings) == {"gzip"}  # the browser took it gzipped, live
    index = results_folder(out) / "html" / "index.html"
    assert index.exists() and len(list(index.parent.glob("u*.html"))) == 12


def test_an_html_replay_opens_from_disk_and_steps_through_the_game(
    browser: object, tmp_path: Path
) -> None:
    bots = make_bots(tmp_path / "bots", {name: {} for name in LONG_NAMES})  # long, for a phone
    out = tmp_path / "results"
    args = ["run", "--bots", str(bots), "--games", "3", "--out", str(out), "--sandbox", "off"]
    with running(args) as run:
        assert run.wait() == 0, run.output
    html = results_folder(out) / "html"
    moved = tmp_path / "elsewhere"  # self-contained: it needs nothing beside it
    shutil.copytree(html, moved)
    (target,) = sorted(moved.glob("u000-t000-r0.html"))
    page = browser.new_page(viewport={"width": 1400, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(target.as_uri())

    def step() -> int:
        return int(page.inner_text("#where").split()[1])

    start = step()
    total = int(page.inner_text("#where").split()[3])
    assert page.locator(".table .die:not(.hidden)").count() >= 10  # every die shown
    page.click("#forward")
    page.click("#forward")
    assert step() == start + 2
    assert page.locator(".table .bids li").count() >= 1
    assert "ms" in page.inner_text(".table .bids")  # each decision's thinking time
    page.click("#back")
    assert step() == start + 1
    rounds = page.locator("#round option").count()
    assert rounds >= 2
    page.select_option("#round", "2")
    assert "round 2" in page.inner_text(".table h3")
    at = step()
    page.select_option("#speed", "10")
    page.click("#play")
    page.wait_for_function(
        f"Number(document.getElementById('where').textContent.split(' ')[1]) > {at + 3}"
    )
    page.click("#play")  # pause
    page.click("#last")
    assert step() == total and page.locator(".table .order li").count() == 3
    page.keyboard.press("Home")
    assert step() == 1
    page.click("#last")
    page.screenshot(path=str(screenshots(tmp_path) / "replay.png"), full_page=True)
    page.select_option("#round", "1")
    page.click("#forward")
    page.screenshot(path=str(screenshots(tmp_path) / "replay-round1.png"), full_page=True)
    assert not errors
    index = browser.new_page()  # type: ignore[attr-defined]
    index.goto((moved / "index.html").as_uri())
    assert index.locator("a[href$='.html']").count() == 3
    assert index.locator("th", has_text="above next").count() == 1  # the board's confidence
    aligned = index.evaluate(  # names and words to the left, as they are read
        "[...document.querySelectorAll('td.bot, table.games td:not(.num)')]"
        ".map(td => getComputedStyle(td).textAlign)"
    )
    assert len(aligned) == 3 + 3 * 3 and set(aligned) <= {"left", "start"}, aligned
    fits_both(browser, (moved / "index.html").as_uri(), tmp_path, "replays-index")


def test_a_bots_escape_sequences_are_shown_as_text_in_a_replay(
    browser: object, tmp_path: Path
) -> None:
    """Escaped by the server, and by the page again: a replay page whose data holds them raw
    (made by an arena before they were escaped) shows them escaped all the same."""
    words = "\x1b[2J\x1b[Hall good \u202edeppots\u202c \x9b2J"
    shown = "\\x1b[2J\\x1b[Hall good \\u202edeppots\\u202c \\x9b2J"
    hands = ((1, 2, 3, 4, 5), (6, 6, 6, 6, 6))
    fault = FaultEvent(1, FaultKind.MALFORMED_MESSAGE, f"bad (the bot says: {words})", words)
    replay = Replay(
        "g1", ("ann", "ben"), engine.Ruleset(), ("ann", "ben"), (Deal(1, 0, False, hands), fault)
    )
    page_text = replay_html(replay, "t1")
    raw = (
        page_text.replace("\\\\x1b", "\\u001b")
        .replace("\\\\u202", "\\u202")
        .replace("\\\\x9b", "\\u009b")
    )
    assert raw != page_text and "\\u001b[2J" in raw
    for name, text in (("escaped", page_text), ("raw", raw)):
        path = tmp_path / f"{name}.html"
        path.write_text(text)
        page = browser.new_page()  # type: ignore[attr-defined]
        page.goto(path.as_uri())
        page.click("#last")
        said = page.inner_text(".table .bids li.fault")
        assert f"(the bot says: {shown})" in said and f"(sent {shown})" in said, (name, said)
        body = page.inner_text("body")
        assert not any(r in body for r in ("\x1b", "\u202e", "\u202c", "\x9b")), name


LONG_NAMES = ("a-bot-with-a-name-of-forty-characters-xy", "bluffer-bot-deluxe-edition", "ann")


def tables_counted(page: Any) -> tuple[int, int, int, int]:
    """What the tables' title says is in play and just finished, and the cards beneath it,
    read at one moment."""
    title, over, in_play, done = page.evaluate(
        """() => [document.querySelector('.panel h2:has(#tables-title)').textContent,
                  document.getElementById('playing').textContent,
                  document.querySelectorAll('#tables .table:not(.over)').length,
                  document.querySelectorAll('#tables .table.over').length]"""
    )
    said = re.fullmatch(r"Tables in play \((\d+)\)\s*(?:and (\d+) just finished)?", title.strip())
    assert said, title
    assert (said[2] is None) == (over == ""), (title, over)
    return int(said[1]), int(said[2] or 0), in_play, done


def test_the_live_page_fits_a_screen_and_a_phone_with_long_names_and_no_faults(
    browser: object, tmp_path: Path
) -> None:
    """At 1280x900 and at 390 px: every column of the leaderboard whole, no element wider than
    its panel, no sideways scroll, each name on one line (cut, with its title, where too
    long); an empty Faults panel says so, the run's notices have a heading, and the tables'
    title counts the cards beneath it, the tables in play above the finished ones."""
    slow = {"BOT_MODE": "slow", "BOT_SLEEP": "0.03"}
    bots = make_bots(tmp_path / "bots", dict.fromkeys(LONG_NAMES, slow))
    out = tmp_path / "results"
    args = ["run", "--bots", str(bots), "--games", "9", "--jobs", "2", "--out", str(out)]
    with running([*args, "--table-size", "2", "--sandbox", "off", "--web", "127.0.0.1:0"]) as run:
        url = run.url()
        pages = {}
        for name, size in (("1280", SCREEN), ("phone", PHONE)):
            page = browser.new_page(viewport=size)  # type: ignore[attr-defined]
            page.goto(url)
            pages[name] = page
        for name, page in pages.items():
            page.wait_for_selector(".table .seat.to-act", timeout=WAIT_MS)
            page.wait_for_selector("#standings tbody tr", timeout=WAIT_MS)
            assert layout_problems(page) == [], name
            assert page.locator("#faults li").all_inner_texts() == ["No faults"]
            assert page.locator("#notes li").count() >= 1  # --sandbox off is a notice
            assert page.locator("#notes-title").inner_text() == "Notices"
            said_in_play, said_over, in_play, over = tables_counted(page)
            assert (said_in_play, said_over) == (in_play, over)
            headers = page.locator("#standings thead th:visible").all_inner_texts()
            assert {"#", "bot", "rating", "win%", "faults"} <= set(headers), headers
            cut = page.locator(f"#standings td.bot[title='{LONG_NAMES[0]}']")
            assert cut.count() == 1
            page.screenshot(
                path=str(screenshots(tmp_path) / f"live-long-names-{name}.png"), full_page=True
            )
        page = pages["1280"]
        page.wait_for_function(  # a finished table beside one in play, counted apart
            "document.querySelectorAll('#tables .table.over').length > 0", timeout=WAIT_MS
        )
        said_in_play, said_over, in_play, over = tables_counted(page)
        assert (said_in_play, said_over) == (in_play, over) and over > 0
        page.wait_for_function(  # a table opened after one that finished, both on show
            "document.querySelector('#tables .table.over ~ .table:not(.over)') !== null"
            " || document.querySelector('#tables .table:not(.over) ~ .table.over') !== null",
            timeout=WAIT_MS,
        )
        order = page.evaluate(
            "[...document.querySelectorAll('#tables .table')]"
            ".map(t => t.classList.contains('over'))"
        )
        assert order == sorted(order), order  # the tables in play above the finished ones
        assert run.wait() == 0, run.output
        for name, page in pages.items():
            page.wait_for_selector("#standings th.sure", timeout=WAIT_MS)  # the final board
            assert layout_problems(page) == [], name
            assert page.locator("#faults li").all_inner_texts() == ["No faults"]
            page.screenshot(
                path=str(screenshots(tmp_path) / f"live-long-names-end-{name}.png"), full_page=True
            )
