"""`--web`: the live page beside a run (or a league server), and the HTML replays after it.

The web server is an optional extra (`pip install -e ".[web]"`, run in the clone): it
is loaded only when `--web` asks for it, and its absence is said in one line.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING

from arena.web.address import DEFAULT_ADDRESS, WebError, parse_address

if TYPE_CHECKING:  # aiohttp (the web extra) and prometheus_client: loaded only for a page
    from collections.abc import AsyncIterator, Callable

    from arena.metrics import Metrics
    from arena.tournament.metering import GameMeter
    from arena.tournament.tournament import Summary
    from arena.web.portal.authors import AuthorPages
    from arena.web.portal.request_pages import RequestPages
    from arena.web.spectator import Spectator
    from arena.web.web_server import WebServer


def address(text: str) -> str:
    """The --web value, checked as the command line is read."""
    try:
        parse_address(text)
    except WebError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--web {text!r}: ")) from None
    return text


def add_web_flag(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--web",
        nargs="?",
        const=DEFAULT_ADDRESS,
        type=address,
        metavar="HOST:PORT",
        help=f"serve a live page of {what} (default 127.0.0.1 and a free port, printed at start)",
    )


def web_server() -> type[WebServer]:
    """The web server's class; a WebError saying how to install the web extra without it."""
    try:
        from arena.web.web_server import WebServer
    except ImportError as error:
        raise WebError(
            f"--web needs the web extra ({error.name} is missing): "
            'pip install -e ".[web]" (run in the clone)'
        ) from None
    return WebServer


@contextlib.asynccontextmanager
async def serving(
    spectator: Spectator,
    where: str,
    say: Callable[[str], None],
    metrics: Metrics | None = None,
    authors: AuthorPages | None = None,
) -> AsyncIterator[None]:
    """The page (and `metrics` at /metrics, and a league's `authors` pages) served while the
    block runs; a port in use stops here, before anything starts."""
    pages = () if authors is None else (authors, request_pages(authors))
    server = web_server()(spectator, where, metrics, pages)
    url = await server.start()
    say(f"Live page: {url}")
    if metrics is not None:
        say(f"Metrics for Prometheus: {url}metrics")
    if authors is not None:
        say(f"League page: {url}league   Authors' page: {url}author")
    try:
        yield
    finally:
        await server.stop()


def metrics() -> Metrics:
    """The metrics served beside a page (prometheus_client is loaded only for one)."""
    from arena.metrics import Metrics

    return Metrics()


def meter() -> GameMeter:
    """The metrics of a run with a page, and the meter that counts its games into them."""
    from arena.tournament.metering import GameMeter

    return GameMeter(metrics())


def after_run(spectator: Spectator | None, say: Callable[[str], None]) -> Callable[[Summary], None]:
    """What a league server does as each tournament ends: the page is shown its final board
    (with the batch fit's confidence), and the HTML replays are written."""

    def ended(summary: Summary) -> None:
        if spectator is not None:
            spectator.ended(summary)
        pages(summary, say)

    return ended


def pages(summary: Summary, say: Callable[[str], None]) -> None:
    """The run's HTML replays; a disk that refuses them is said, and the run's result stands."""
    from arena.web.board import board_json
    from arena.web.replay_page import write_pages

    folder = summary.folder
    if summary.board is not None:  # the leaderboard the terminal printed, confidence and all
        standings = board_json(summary.board)["standings"]
    else:
        standings = [s.row(rank).to_json() for rank, s in enumerate(summary.table, start=1)]
    try:
        made = write_pages(folder, standings)
    except OSError as error:
        say(f"HTML replays not written under {folder / 'html'}: {error.strerror or error}")
        return
    for problem in made.problems:
        say(f"HTML replays: {problem}")
    say(f"HTML replays: {made.folder / 'index.html'} ({made.games} games)")


def request_pages(authors: AuthorPages) -> RequestPages:
    """The author's test-game pages beside `authors` (aiohttp is loaded only for a page)."""
    from arena.web.portal.request_pages import RequestPages

    return RequestPages(authors)


def author_pages(spectator: Spectator) -> AuthorPages:
    """A league server's public and authors' pages (aiohttp is loaded only for a page)."""
    from arena.web.portal.authors import AuthorPages

    return AuthorPages(spectator)
