"""The author's page in a real browser, on a real `arena serve --web` and the real commands.

The entrants get their tokens from `arena token add`, send their bots with
`arena submit`, and the organiser plays the submitted versions with `arena
admin start` (no --bots), three bots at tables of two; then chromium logs in
as alice, finds her versions, build log, check report, games, a replay and her
own stderr (a game's part, and the whole log), never bob's, and sends a second
version through the page's form.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from author_harness import ARMED, NAMES, stderr_mark, turn_mark, write_bot
from web_harness import WAIT_S, arena_command, running, said, screenshots

WAIT_MS = 90_000

pytestmark = pytest.mark.slow


def arena(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(  # noqa: PLW1510 (the code is asserted, with the output)
        arena_command(*args),
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        env={**os.environ, **(env or {})},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def archive(folder: Path) -> bytes:
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        for path in sorted(folder.iterdir()):
            tar.add(path, arcname=path.name)
    return data.getvalue()


@contextlib.contextmanager
def played_league(
    tmp: Path, faults: dict[str, str | None] | None = None
) -> Iterator[tuple[str, dict[str, str], Path]]:
    """`arena serve --web` with each entrant's version submitted and a night played on them;
    the page's address, the tokens and the bots' folders. `faults`: the entrants instead of
    NAMES, each with the fault its bot commits once its version is in
    (`author_harness.FAULTS`)."""
    league, out, bots = tmp / "league.sqlite", tmp / "results", tmp / "bots"
    names = tuple(faults) if faults else NAMES
    tokens = {}
    for name in names:
        tokens[name] = arena("token", "add", name, "--league", str(league)).split()[-1]
        write_bot(bots, name, (faults or {}).get(name))
    serve = [
        "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0", "--league", str(league),
        "--out", str(out), "--web", "127.0.0.1:0", "--builds-at-once", "3",
    ]  # fmt: skip
    with running(serve) as server:
        url = server.url()
        port = said(server, r"Referee listening on 127\.0\.0\.1:(\d+)").group(1)
        admin = said(server, r"Admin on (127\.0\.0\.1:\d+); token in (\S+)")
        for name in names:
            sent = arena(
                "submit", str(bots / name), "--server", f"127.0.0.1:{port}",
                env={"PERUDO_TOKEN": tokens[name]},
            )  # fmt: skip
            assert f"accepted as version 1 of {name}" in sent, sent
        (bots / ARMED).touch()
        played = arena(
            "admin", "start", "--admin", admin.group(1), "--token-file", admin.group(2),
            "--league", str(league), "--games", "6", "--table-size", "2", "--jobs", "1",
            "--name", "night1", "--sandbox", "off",
        )  # fmt: skip
        assert "night1" in played, played
        yield url, tokens, bots


def log_in(page: Any, url: str, name: str, token: str) -> None:
    page.goto(url + "author")
    assert page.url.endswith("/author/login")
    page.fill("input[name=name]", name)
    page.fill("input[name=token]", token)
    page.click("button[type=submit]")
    page.wait_for_url(url + "author")
    assert token not in page.url


def sees_her_own(page: Any) -> str:
    """Her versions, build log, check report, games, a replay link and her stderr; the
    address of her log's page."""
    assert "version 1: accepted - playing" in page.inner_text("body")
    page.click("text=build log")
    page.click("text=check report")
    assert "passed" in page.inner_text(".checks")
    body = page.content()
    assert stderr_mark("bob") not in body and "bob says" not in body
    assert page.locator("#games tr").count() > 1
    replay = page.locator("#games a").first.get_attribute("href")
    assert replay is not None and replay.startswith("/league/replay/night1/")
    page.locator("a.log").first.click()
    log = page.inner_text("#log")
    address = str(page.url)
    assert turn_mark("alice") in log  # the game's part: her turns, not her start
    assert stderr_mark("alice") not in log and page.locator("#part").count() == 1
    assert "bob says" not in log and "carol says" not in log
    page.click("#whole")
    whole = page.inner_text("#log")
    assert stderr_mark("alice") in whole and turn_mark("alice") in whole
    assert "bob says" not in whole and "carol says" not in whole
    return address


def refuses_others(page: Any, public: Any, url: str, log_url: str) -> None:
    """bob and carol's game, its id taken from the public page, put in her log's address."""
    public.goto(url + "league")
    assert "alice" in public.inner_text("#leaderboard")
    ids = [a.inner_text() for a in public.locator("#games a").all()]
    page.goto(url + "author")
    own = {a.inner_text() for a in page.locator("#games a").all()}
    theirs = [g for g in ids if g not in own]
    assert theirs, (ids, own)
    for wrong in (log_url.rsplit("/", 1)[0] + "/" + theirs[0], log_url.replace("/night1/", "/x/")):
        refused = page.goto(wrong)
        assert refused is not None and refused.status == 404, wrong
        assert stderr_mark("bob") not in page.content()


def submits_through_the_form(page: Any, url: str, bot: Path) -> None:
    page.goto(url + "author")
    (bot / "bot.py").write_text((bot / "bot.py").read_text() + "# version 2\n")
    sent = {"name": "alice.tar.gz", "mimeType": "application/gzip", "buffer": archive(bot)}
    page.set_input_files("input[name=archive]", sent)
    page.click("text=Submit")
    page.wait_for_selector("#verdict")
    assert page.inner_text("#verdict") == "accepted as version 2 of alice"
    page.goto(url + "author")
    assert "version 2: accepted - playing" in page.inner_text("body")


def test_alice_finds_her_own_and_submits_through_the_page(tmp_path: Path, browser: Any) -> None:
    with played_league(tmp_path) as (url, tokens, bots):
        page, public = browser.new_page(), browser.new_page()
        page.set_default_timeout(WAIT_MS)
        public.set_default_timeout(WAIT_MS)
        log_in(page, url, "alice", tokens["alice"])
        log_url = sees_her_own(page)
        refuses_others(page, public, url, log_url)
        submits_through_the_form(page, url, bots / "alice")
        page.click("text=Log out")
        page.wait_for_url(url + "author/login")
        page.goto(url + "author")
        assert page.url.endswith("/author/login")


SIZES = {"screen": {"width": 1280, "height": 900}, "phone": {"width": 390, "height": 844}}
DARK = "rgb(18, 22, 28)"
"""The live page's background (style.css's --bg)."""
FIT = """() => ({
  wide: document.documentElement.scrollWidth,
  window: window.innerWidth,
  background: getComputedStyle(document.body).backgroundColor,
})"""


def fits(page: Any, where: str, folder: Path, shot: str) -> None:
    """The page is dark like the live page and no wider than its window; screenshotted."""
    page.goto(where)
    measured = page.evaluate(FIT)
    page.screenshot(path=str(folder / f"{shot}.png"), full_page=True)
    assert measured["background"] == DARK, (where, measured)
    assert measured["wide"] <= measured["window"], (where, measured)


@pytest.mark.timeout(900)
def test_the_author_pages_are_dark_and_fit_a_phone(tmp_path: Path, browser: Any) -> None:
    """Every page an author sees (the test games' among them), a fault's page for each kind
    included, at a projector's size and a phone's, screenshotted for the run's results."""
    faults = {"sleepy": "timeout", "cheat": "illegal_action", "crashy": "crash"}
    folder = screenshots(tmp_path)
    # And one that commits none: someone still playing once the others have faulted, so that
    # each faulty bot reaches its third turn.
    with played_league(tmp_path, {**faults, "steady": None}) as (url, tokens, _):
        for size, viewport in SIZES.items():
            for name, kind in faults.items():
                page = browser.new_page(viewport=viewport)
                page.set_default_timeout(WAIT_MS)
                fits(page, url + "author/login", folder, f"login-{size}")
                log_in(page, url, name, tokens[name])
                fits(page, url + "author", folder, f"author-{name}-{size}")
                fits(page, url + "author/requests", folder, f"requests-{name}-{size}")
                page.goto(url + f"author?fault={kind}")
                href = page.locator("a.fault").first.get_attribute("href")
                assert href is not None and href.startswith("/author/fault/night1/")
                fits(page, url + href.lstrip("/"), folder, f"fault-{kind}-{size}")
                assert page.locator("#dice").inner_text().strip()
                step = page.locator("#replay").get_attribute("href").rsplit("=", 1)[1]
                page.click("#replay")  # the replay, opened at the fault's step
                assert page.inner_text("#where").startswith(f"step {step} of ")
                assert page.locator(f"#faults a[href='{href}']").count() == 1
                fits(page, url + "league", folder, f"league-{size}")
                page.close()
