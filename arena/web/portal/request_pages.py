"""The author's test games on the web: a form to ask for them, and its requests' outcomes.

`/author/requests` shows the logged-in entrant its requests, newest first (each game's
ranking, its replay, how often it finished ahead of each opponent), and a form that asks
for more: the same request `arena request` makes, judged and queued by the same desk
(`arena.league.request_games`), under the same quota. Only the session's entrant is ever
shown or asked for: the entrant is the session's, never the form's, the form carries the
session's CSRF token (and, like the login, a post from another site is refused), and a
replay is served only for a game of a request of the session's own.
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Sequence
from urllib.parse import quote

from aiohttp import web

from arena.store import StoreError
from arena.store.requests import RequestRow
from arena.submissions.requests import Desk, RequestRefusedError, left_today, places, scores
from arena.web.portal.author_html import link, page, shown
from arena.web.portal.authors import AuthorPages, Handler, _foreign_site, _html, _see_other, _text
from arena.web.portal.sessions import COOKIE, Session, csrf_ok
from arena.web.replay_page import ReplayPageError, replay_page

SHOWN = 50
"""Requests listed at most, newest first."""


class RequestPages:
    """The test-game routes beside the author's page: its sessions and its league's desk."""

    def __init__(self, authors: AuthorPages) -> None:
        self._authors = authors

    @property
    def desk(self) -> Desk | None:
        """The league server's, once attached to the author's pages."""
        league = self._authors.league
        return None if league is None else league.requests

    def add_to(self, app: web.Application) -> None:
        app.router.add_get("/author/requests", self._guarded(self._list))
        app.router.add_post("/author/requests", self._guarded(self._ask))
        app.router.add_get("/author/requests/{request}/{game}", self._guarded(self._replay))

    def _guarded(self, handler: Handler) -> Handler:
        async def guarded(request: web.Request) -> web.StreamResponse:
            if self.desk is None or self._authors.league is None:
                return _text(503, "the league server is starting; try again in a moment")
            try:
                return await handler(request)
            except StoreError as error:
                return _text(503, f"the league store cannot be read now: {error}")

        return guarded

    def _session(self, request: web.Request) -> Session | None:
        sessions = self._authors.sessions
        return None if sessions is None else sessions.get(request.cookies.get(COOKIE))

    async def _list(self, request: web.Request) -> web.Response:
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        return _html(self._page(session))

    def _page(self, session: Session, said: str = "") -> str:
        assert self.desk is not None
        desk, name = self.desk, session.name
        rows = desk.store.requests(name)[:SHOWN]
        left = left_today(desk.store, desk.limits, name, time.time())
        return requests_page(name, session.csrf, rows, desk.limits.max_games, left, said)

    async def _ask(self, request: web.Request) -> web.Response:
        assert self.desk is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        foreign = _foreign_site(request)
        form = await request.post()
        if foreign is not None or not csrf_ok(session, str(form.get("csrf", ""))):
            return _text(403, "the form is not this session's (its CSRF token is missing)")
        against = str(form.get("against", "")).replace(",", " ").split()
        try:
            games = int(str(form.get("games", "")) or 0)
            version = int(str(form.get("version", "")) or 0) or None
        except ValueError:
            return _html(self._page(session, "games and version are whole numbers"), 400)
        try:
            self.desk.ask(session.name, version, against, games, time.time())
        except RequestRefusedError as refused:
            return _html(self._page(session, str(refused)), 400)
        return _see_other("/author/requests")

    async def _replay(self, request: web.Request) -> web.Response:
        assert self.desk is not None and self._authors.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        row = self.desk.store.request(request.match_info["request"])
        game = request.match_info["game"]
        mine = row is not None and row.name == session.name
        played = next((g for g in row.played if g.game == game), None) if row and mine else None
        if played is None:
            return _text(404, "no game of a request of yours by this id")
        path = self._authors.league.out / played.replay
        try:
            text = await asyncio.to_thread(replay_page, path)
        except ReplayPageError:
            return _text(404, "the replay of this game is not in the results folder")
        return web.Response(text=text, content_type="text/html")


def requests_page(
    name: str, csrf: str, rows: Sequence[RequestRow], max_games: int, left: int, said: str = ""
) -> str:
    token = html.escape(csrf, quote=True)
    error = f"<p class=bad>{shown(said)}</p>" if said else ""
    body = (
        f"<h1>Test games: {shown(name)}</h1><a href='/author'>your page</a>"
        "<p>Unranked games of your version against opponents you choose, played beside the "
        "ladder. Nobody else sees them, and no rating counts them. "
        f"You may ask {left} more time(s) today, up to {max_games} games each.</p>{error}"
        "<form method=post action='/author/requests'>"
        f"<input type=hidden name=csrf value='{token}'>"
        "<label>Opponents <input name=against required placeholder='bob carol@2'></label> "
        f"<label>Games <input type=number name=games min=1 max={max_games} value=2></label> "
        "<label>Your version <input type=number name=version min=1 placeholder=playing>"
        "</label> <button type=submit>Ask</button></form>"
        "<p>Each opponent as NAME (the version that plays now) or NAME@VERSION; several sit "
        "at one table. The games are rounded up so that each sits in each seat.</p>"
        f"<h2>Your requests</h2>{''.join(map(_request, rows)) or '<p>None yet.</p>'}"
    )
    return page(f"Test games: {name}", body)


def _request(row: RequestRow) -> str:
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(row.requested))
    table = ", ".join(f"{n}@{v}" for n, v in row.seats)
    why = f": {shown(row.reason)}" if row.reason else ""
    against = "".join(
        f"<li>against {shown(s.opponent)}: ahead in {s.ahead} of {s.games}</li>"
        for s in scores(row)
        if row.played
    )
    games = "".join(
        f"<tr><td><a href='{link(_replay_href(row.uid, g.game))}'>{shown(g.game)}</a></td>"
        f"<td>{place}</td><td>{shown(', '.join(g.ranking))}</td></tr>"
        for g, place in zip(row.played, places(row), strict=False)
    )
    listed = (
        f"<table><tr><th>game</th><th>your place</th><th>ranking</th></tr>{games}</table>"
        if games
        else ""
    )
    return (
        f"<h3>{shown(row.uid)}</h3><p>{when}: {row.games} games, {shown(table)}; "
        f"{shown(row.state.value)}{why}</p><ul>{against}</ul>{listed}"
    )


def _replay_href(uid: str, game: str) -> str:
    return f"/author/requests/{quote(uid, safe='')}/{quote(game, safe='')}"
