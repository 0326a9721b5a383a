"""The ladder on a real `arena serve --web --ladder` in a real browser (Debian's chromium,
driven by Playwright): three remote kit bots play it, and the live page shows its board,
its table in play and its latest games as they come, each linked to its replay; the
author's page shows the bot's ladder games and its ladder rating over time."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from web_harness import (
    WAIT_S,
    arena_command,
    fits_both,
    layout_problems,
    running,
    said,
    screenshots,
)

WAIT_MS = 90_000
SAMPLES = Path(__file__).resolve().parents[3] / "sample_bots"
SCRIPTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}

pytestmark = pytest.mark.slow


def token_for(name: str, league: Path) -> str:
    done = subprocess.run(  # noqa: PLW1510 (the code is asserted, with the output)
        arena_command("token", "add", name, "--league", str(league)),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.split()[-1]


def launch(port: str, tokens: dict[str, str]) -> list[subprocess.Popen[bytes]]:
    """The sample bots as remote entrants, each in a process of its own."""
    bots = []
    for name, script in SCRIPTS.items():
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("PERUDO_")},
            "PERUDO_ADDRESS": f"127.0.0.1:{port}",
            "PERUDO_BOT_NAME": name,
            "PERUDO_TOKEN": tokens[name],
            "PERUDO_SESSIONS": "3",
        }
        command = [sys.executable, str(SAMPLES / script)]
        bots.append(subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL))
    return bots


IN_PLAY = """() => {
  const cards = [...document.querySelectorAll('#tables .table')];
  const live = cards.filter((c) => !c.classList.contains('over'));
  const first = live.length ? live[0].getBoundingClientRect() : null;
  return {
    games: cards.map((c) => c.dataset.game),
    liveFirst: cards.findIndex((c) => c.classList.contains('over')) === -1
      || cards.slice(cards.findIndex((c) => c.classList.contains('over')))
        .every((c) => c.classList.contains('over')),
    inSight: first !== null && first.top >= 0 && first.top + 40 < innerHeight,
  };
}"""
"""The tables panel as a projector shows it: every card's game, whether the tables in play
all come before the finished ones, and whether the first in play is in sight unscrolled."""


def watches_a_table(page: Any) -> None:
    """A ladder table in play, with its bids as they come and its dice at a reveal; the header
    says the ladder plays, never that it waits for a tournament."""
    page.wait_for_selector("#tables .table:not(.over) .bids li")  # a bid, live
    page.wait_for_selector("#tables .table .die:not(.hidden)")  # the dice of a reveal
    header = page.inner_text("header")
    assert "waiting for the tournament" not in header and "0 / 0 games" not in header
    assert page.inner_text("#tournament").startswith("ladder running, tables of 3")
    assert re.search(r"\d+ ladder games played", page.inner_text("#done"))
    seen = page.evaluate(IN_PLAY)
    assert seen["games"] and all(re.fullmatch(r"ladder-\d{6}/.+", g) for g in seen["games"])
    assert seen["liveFirst"], seen
    # At 1280x900, unscrolled, and counted in the title, seen at one instant (a table may end
    # between two looks).
    counted = (
        "parseInt((document.querySelector('#tables-title').innerText.match(/\\d+/)"
        " || ['0'])[0]) >= 1"
    )
    page.wait_for_function("(" + IN_PLAY + ")().inSight && " + counted)


def sees_her_ladder(author: Any, url: str, token: str, tmp_path: Path) -> None:
    """alpha, logged in, finds her ladder games and her row of the ladder's board."""
    author.set_default_timeout(WAIT_MS)
    author.goto(url + "author")
    author.fill("input[name=name]", "alpha")
    author.fill("input[name=token]", token)
    author.click("button[type=submit]")
    author.wait_for_url(url + "author")
    assert author.locator("#games tr").count() > 1  # her ladder games
    assert author.locator("#ladder-standings td").nth(1).inner_text() == "alpha"
    author.screenshot(path=str(screenshots(tmp_path) / "author.png"), full_page=True)


def test_the_live_page_shows_the_ladder_as_it_plays(tmp_path: Path, browser: Any) -> None:
    league, out = tmp_path / "league.sqlite", tmp_path / "results"
    tokens = {name: token_for(name, league) for name in SCRIPTS}
    serve = [
        "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--league", str(league),
        "--out", str(out), "--web", "127.0.0.1:0", "--ladder",
    ]  # fmt: skip
    bots: list[subprocess.Popen[bytes]] = []
    with running(serve) as server:
        try:
            url = server.url()
            port = said(server, r"Referee listening on 127\.0\.0\.1:(\d+)").group(1)
            bots.extend(launch(port, tokens))
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(WAIT_MS)
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(url)
            page.wait_for_selector("#ladder:not([hidden])")
            watches_a_table(page)
            page.wait_for_selector("#ladder-table .who")  # a table in play, by its entrants
            page.wait_for_selector("#ladder-latest li a")  # a game recorded, with no reload
            page.wait_for_function(
                "document.querySelectorAll('#ladder-standings tbody tr').length === 3"
            )
            names = page.locator("#ladder-standings td.bot").all_inner_texts()
            assert sorted(names) == sorted(SCRIPTS)
            assert page.inner_text("#ladder-state").startswith("running, tables of 3")
            assert page.locator("main.ladder-first").count() == 1  # first while it plays
            game, href = page.locator("#ladder-latest li a").first.evaluate(
                "a => [a.textContent, a.getAttribute('href')]"
            )
            assert re.fullmatch(r"league/replay/ladder-\d{6}/" + re.escape(game), href), href
            assert layout_problems(page) == []
            page.screenshot(path=str(screenshots(tmp_path) / "ladder.png"), full_page=True)
            phone = browser.new_page(viewport={"width": 390, "height": 844})
            phone.goto(url)
            phone.wait_for_selector("#ladder-latest li a", timeout=WAIT_MS)
            assert layout_problems(phone) == []  # on a phone too, every name in its panel
            phone.screenshot(path=str(screenshots(tmp_path) / "ladder-phone.png"), full_page=True)
            replay = browser.new_page()
            replay.goto(url + href)
            assert game in replay.inner_text("#title")  # its replay, from the league's pages
            sees_her_ladder(browser.new_page(), url, tokens["alpha"], tmp_path)
            fits_both(browser, url + "league", tmp_path, "league")
            assert not errors, errors
        finally:
            for bot in bots:
                bot.kill()
                bot.wait(10)
