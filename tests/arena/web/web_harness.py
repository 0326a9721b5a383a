"""A real `arena run --web` in a child process, its page's address, and its event stream;
and what a browser test measures of the page's layout.

The run plays the fast test bots (tests/arena/bots, laid out by `bot_folder`),
slowed a little per decision where a test wants a table visibly in play.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from referee_harness import bot_folder

WAIT_S = 90.0
"""The most a test waits for a run to get going or to end: generous on a busy machine."""


def arena_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "arena.cli.main", *args]


def make_bots(folder: Path, names: dict[str, dict[str, str]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, settings in names.items():
        bot_folder(folder, name, "kit_bot.py", settings)
    return folder


class Run:
    """`arena run` with `--web` in a child process; its output read line by line."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            arena_command(*args),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def url(self) -> str:
        """The live page's address, as the run prints it at the start."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if "Live page: " in line:
                    return line.split("Live page: ", 1)[1].strip()
            if self.proc.poll() is not None:
                self._reader.join(5)
                raise AssertionError("the run ended before serving its page:\n" + self.output)
            time.sleep(0.05)
        raise AssertionError("no live page address within the limit:\n" + self.output)

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait(self) -> int:
        code = self.proc.wait(WAIT_S)
        self._reader.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


@contextmanager
def running(args: list[str]) -> Iterator[Run]:
    run = Run(args)
    try:
        yield run
    finally:
        run.kill()


class Stream:
    """Every server-sent event a page at `url` receives, recorded until the server ends it."""

    def __init__(self, url: str) -> None:
        self.messages: list[dict[str, Any]] = []
        self.ended = threading.Event()
        self._response = urllib.request.urlopen(url + "events", timeout=WAIT_S)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self._response:
                if raw.startswith(b"data: "):  # what happened since the server's last tick
                    self.messages.extend(json.loads(raw[6:]))
        finally:
            self.ended.set()


def results_folder(out: Path) -> Path:
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    return folder


LAYOUT = """() => {
  const said = [];
  const where = (e) => e.tagName.toLowerCase() + (e.className ? "." + e.className : "")
    + " '" + (e.textContent || "").trim().slice(0, 40) + "'";
  const page = document.scrollingElement;
  if (page.scrollWidth > innerWidth) said.push("the page scrolls sideways: " + page.scrollWidth);
  for (const panel of document.querySelectorAll(".panel")) {
    const box = panel.getBoundingClientRect();
    for (const e of panel.querySelectorAll("*")) {
      const r = e.getBoundingClientRect();
      if (r.width && (r.right > box.right + 0.5 || r.left < box.left - 0.5)) {
        said.push("wider than its panel: " + where(e));
      }
    }
  }
  const board = document.querySelector(".standings");
  if (board.scrollWidth > board.clientWidth) said.push("the leaderboard scrolls sideways");
  const table = document.getElementById("standings").getBoundingClientRect();
  for (const th of document.querySelectorAll("#standings th")) {
    const r = th.getBoundingClientRect();
    if (!r.width) continue; // a column given up on a narrow panel: none of it shows
    if (r.right > table.right + 0.5 || th.scrollWidth > th.clientWidth + 1) {
      said.push("a clipped column: " + where(th));
    }
  }
  const names = document.querySelectorAll("#standings td.bot, .seat .name, .who, .order .name");
  for (const name of names) {
    const style = getComputedStyle(name);
    const line = parseFloat(style.lineHeight) || 1.5 * parseFloat(style.fontSize);
    const high = name.getBoundingClientRect().height;
    if (high > 1.5 * line) said.push("a name on two lines: " + where(name));
    const cut = name.scrollWidth > name.clientWidth + 1;
    if (cut && name.title !== name.textContent) said.push("a cut name, no title: " + where(name));
  }
  return { problems: said, names: names.length };
}"""
"""Everything wrong with the page's layout as the browser laid it out: an element wider than
its panel (or the page wider than the window), a leaderboard column clipped, a bot's name on
two lines or cut with no title that says it whole."""


def layout_problems(page: Any) -> list[str]:
    measured = page.evaluate(LAYOUT)
    assert measured["names"] > 0  # there were names to measure
    return list(measured["problems"])


def screenshots(tmp_path: Path) -> Path:
    """Where the browser tests leave their screenshots: $ARENA_SCREENSHOTS when it is set (CI
    keeps them with the run's results), else the test's own temporary folder."""
    folder = Path(os.environ.get("ARENA_SCREENSHOTS") or tmp_path / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    print(f"screenshots in {folder}")
    return folder


def said(run: Run, pattern: str) -> re.Match[str]:
    """The first line of the server's output matching `pattern`, waited for."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for line in list(run.lines):
            found = re.search(pattern, line)
            if found:
                return found
        assert run.proc.poll() is None, run.output
        time.sleep(0.05)
    raise AssertionError(f"nothing like {pattern!r}:\n{run.output}")


FITS = """() => {
  const said = [];
  const page = document.scrollingElement;
  if (page.scrollWidth > innerWidth) said.push("the page scrolls sideways: " + page.scrollWidth);
  for (const e of document.querySelectorAll("body *")) {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > innerWidth + 0.5) {
      said.push("past the window's edge: " + e.tagName.toLowerCase() + " '"
        + (e.textContent || "").trim().slice(0, 40) + "'");
    }
  }
  for (const cell of document.querySelectorAll("td.bot, td")) {
    if (cell.scrollWidth > cell.clientWidth + 1 && cell.title !== cell.textContent) {
      said.push("a cut cell, no title: '" + cell.textContent.slice(0, 40) + "'");
    }
  }
  const dark = getComputedStyle(document.body).backgroundColor;
  if (dark !== "rgb(18, 22, 28)") said.push("not the live page's dark background: " + dark);
  return said.slice(0, 20);
}"""
"""Everything that keeps a page of the league's (its public page, a replays' index) from
fitting the window in the live page's style: a sideways scroll, an element past the window's
right edge, a cell cut with no title, a background not the live page's."""


def fit_problems(page: Any) -> list[str]:
    return list(page.evaluate(FITS))


def fits_both(browser: Any, url: str, tmp_path: Path, name: str) -> None:
    """The page at `url` fits a 1280x900 screen and a 390 px phone; screenshots of both."""
    for width, height, form in ((1280, 900, "screen"), (390, 844, "phone")):
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(url)
        assert fit_problems(page) == [], (name, form)
        page.screenshot(path=str(screenshots(tmp_path) / f"{name}-{form}.png"), full_page=True)
        page.close()
