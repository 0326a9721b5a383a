"""The league server's own pages beside the live page: the public page and the author's page.

`/league` shows anyone the leaderboard and the finished games, each with its
replay. `/author` shows an entrant, once logged in with its name and token
(checked as the bots' port checks them; failed logins are limited by
`arena.web.portal.login_limits`), its versions, games, logs and standing, and
takes a new version: the upload goes through the one intake `arena submit`
goes through (`arena.submissions.service.take`). Nothing of
another entrant is shown there: the entrant is the session's, never a
request's, and a game's part of its log is served only for a game it played,
its whole log only for a tournament it played in, from its own file
(`league_view.read_game_log`, `league_view.read_log`), and a fault's page
(`fault_view`) only for a fault of its own. The season the page shows is
kept between requests and brought up to date by what changed
(`league_cache`), so that a page of ten thousand games costs milliseconds.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import BodyPartReader, web

from arena.checkbot.verdict import Check
from arena.referee.service.auth import TokenBook, token_hash
from arena.store import StoreError
from arena.submissions.report import Event, Line
from arena.submissions.service import take
from arena.submissions.versions import Verdict, Versions
from arena.text import printable
from arena.tournament.results.final_record import FinalError, read_record
from arena.web.ladder_view import LadderFeed, LadderHistory, history_of
from arena.web.league_view import (
    GameLog,
    League,
    LogUnavailableError,
    ReplayUnavailableError,
    league_replay,
    plain,
    played_in,
    read_game_log,
    read_log,
    took_part,
)
from arena.web.portal import author_html as pages
from arena.web.portal import fault_html, league_page
from arena.web.portal.author_export import stream_games
from arena.web.portal.author_games import (
    GameFilter,
    GameFilterError,
    paged,
)
from arena.web.portal.fault_view import FaultNotFoundError, explain
from arena.web.portal.league_cache import Boards, LeagueLines, Seasons
from arena.web.portal.login_limits import LoginLimits, Refusal
from arena.web.portal.sessions import COOKIE, Session, Sessions, csrf_ok
from arena.web.replay_page import replay_html
from arena.web.spectator import Spectator

PUBLIC_GAMES = 200
"""Finished games listed on the public page at most, newest first."""
_PRIVATE = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'",
}
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
_DEFAULT_PORTS = {"http": 80, "https": 443}


class AuthorPages:
    def __init__(
        self, spectator: Spectator | None = None, logins: LoginLimits | None = None
    ) -> None:
        """`spectator`: the live page's, which knows whether the tournament in play may show
        its replays yet (games that share deals hide them until it ends); `logins`: how
        often a login may fail."""
        self.spectator = spectator
        self.logins = logins or LoginLimits()
        self.league: League | None = None
        self.sessions: Sessions | None = None
        self._lines = LeagueLines()
        self._boards = Boards()
        self._seasons = Seasons()

    def attach(self, league: League) -> None:
        """The league server, once made: until then the pages say it is starting."""
        self.league = league
        self.sessions = Sessions(league.store.entrants)
        if league.ladder is not None and self.spectator is not None:
            self.spectator.follow_ladder(LadderFeed(league.ladder))

    def add_to(self, app: web.Application) -> None:
        app.on_cleanup.append(self._close)
        app.router.add_get("/league", self._guarded(self._public))
        app.router.add_get("/league/replay/{tournament}/{game}", self._guarded(self._replay))
        app.router.add_get("/author", self._guarded(self._author))
        app.router.add_get("/author/export.jsonl", self._guarded(self._export))
        app.router.add_get("/author/login", self._login_form)
        app.router.add_post("/author/login", self._guarded(self._login))
        app.router.add_post("/author/logout", self._guarded(self._logout))
        app.router.add_post("/author/upload", self._guarded(self._upload))
        app.router.add_get("/author/log/{tournament}/{game}", self._guarded(self._log))
        app.router.add_get("/author/log/{tournament}", self._guarded(self._whole_log))
        app.router.add_get("/author/fault/{tournament}/{game}/{number}", self._guarded(self._fault))

    async def _close(self, app: web.Application) -> None:
        self._boards.close()

    def _guarded(self, handler: Handler) -> Handler:
        """The league attached, and its store's failures a page of one line, not a trace."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            if self.league is None:
                return _text(503, "the league server is starting; try again in a moment")
            try:
                return await handler(request)
            except StoreError as error:
                return _text(503, f"the league store cannot be read now: {error}")

        return guarded

    def _session(self, request: web.Request) -> Session | None:
        assert self.sessions is not None
        return self.sessions.get(request.cookies.get(COOKIE))

    async def _public(self, request: web.Request) -> web.Response:
        assert self.league is not None
        lines = self._lines.read(self.league.store)
        standings = (await self._boards.of(lines)).board
        recent = lines[::-1][:PUBLIC_GAMES]
        ladder = self.league.ladder.status() if self.league.ladder is not None else None
        shown = ladder if ladder is not None and ladder.shown else None
        try:
            final = read_record(self.league.out)
        except FinalError:  # `arena admin final status` says what is wrong with it
            final = None
        return _html(league_page.public_page(standings.rows(), recent, shown, final))

    async def _replay(self, request: web.Request) -> web.Response:
        assert self.league is not None
        tid, game = request.match_info["tournament"], request.match_info["game"]
        line = self.league.store.games_of(tid).get(game) if plain(tid) else None
        if line is None:
            return _text(404, "no such finished game in the league")
        spectator = self.spectator
        playing = spectator.folder if spectator is not None else None
        closed = spectator is not None and not spectator.replays_open
        if closed and playing is not None and playing.name == tid:
            return _text(404, "its replay is shown once its tournament ends (shared deals)")
        try:
            replay = await asyncio.to_thread(league_replay, self.league.out, tid, game)
            text = replay_html(replay, tid)
        except ReplayUnavailableError:
            return _text(404, "the replay of this game is not in the results folder")
        return web.Response(
            text=fault_html.with_fault_links(text, tid, line), content_type="text/html"
        )

    async def _login_form(self, request: web.Request) -> web.Response:
        return _html(pages.login_page())

    async def _login(self, request: web.Request) -> web.Response:
        assert self.league is not None and self.sessions is not None
        foreign = _foreign_site(request)
        if foreign is not None:
            said = (
                f"This login was sent from a page of another site ({foreign}), not from this "
                "server's: open the login page here and log in from it. Behind a reverse "
                "proxy, the proxy must pass the Host header on as the browser sent it."
            )
            return _html(pages.login_page(said), status=403)
        form = await request.post()
        name, token = str(form.get("name", "")), str(form.get("token", ""))
        address = request.remote or ""
        refused = self.logins.refusal(address, name)
        if refused is not None:
            return _too_many(refused)
        if not TokenBook(registry=self.league.store.entrants).check(name, token):
            self.logins.failed(address, name)
            return _html(pages.login_page("No entrant has this name and token."), status=403)
        self.logins.succeeded(address, name)
        response = _see_other("/author")
        response.set_cookie(
            COOKIE,
            self.sessions.open(name, token_hash(token)),
            max_age=int(self.sessions.lifetime),
            path="/",
            httponly=True,
            samesite="Strict",
            secure=request.secure,
        )
        return response

    async def _logout(self, request: web.Request) -> web.Response:
        assert self.sessions is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        form = await request.post()
        if not csrf_ok(session, str(form.get("csrf", ""))):
            return _text(403, "the form is not this session's (its CSRF token is missing)")
        self.sessions.close(request.cookies.get(COOKIE, ""))
        response = _see_other("/author/login")
        response.del_cookie(COOKIE, path="/")
        return response

    async def _author(self, request: web.Request) -> web.Response:
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        try:
            wanted = GameFilter.from_query(request.query)
        except GameFilterError as error:
            return _text(400, f"{error}: change it in the address, or clear the filter")
        name, store = session.name, self.league.store
        lines = self._lines.read(store)
        standings = await self._boards.of(lines)
        season = self._seasons.of(store, self._lines, name)
        playing = store.playing_versions([name]).get(name)
        text = pages.author_page(
            name,
            session.csrf,
            store.submissions(name),
            playing.version if playing is not None else None,
            paged(season.games, wanted),
            wanted,
            season.opponents,
            standings.paths.get(name, []),
            standings.board.rows(),
            await self._ladder_of(name),
        )
        return _html(text)

    async def _export(self, request: web.Request) -> web.StreamResponse:
        """The session's entrant's own games, as JSON lines (`author_export`)."""
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        lines = self._lines.read(self.league.store)
        return await stream_games(request, lines, session.name, self.league.out, _PRIVATE)

    async def _fault(self, request: web.Request) -> web.Response:
        """One of the entrant's own faults, explained (`fault_view`); another's is not found."""
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        tid, game = request.match_info["tournament"], request.match_info["game"]
        number = request.match_info["number"]
        line = self.league.store.games_of(tid).get(game) if plain(tid) else None
        if line is None or session.name not in line.players or not number.isdigit():
            return _text(404, "no game of yours by this id")
        out, name = self.league.out, session.name
        try:
            replay = await asyncio.to_thread(league_replay, out, tid, game)
            view = explain(line, replay, name, int(number))
        except (ReplayUnavailableError, FaultNotFoundError) as error:
            return _text(404, str(error))
        try:
            log = await asyncio.to_thread(read_game_log, out, tid, name, game)
            tail = await asyncio.to_thread(read_log, out, tid, name)
        except LogUnavailableError as error:
            log, tail = GameLog("", str(error)), ""
        return _html(fault_html.fault_page(name, tid, game, view, log, tail))

    async def _ladder_of(self, name: str) -> LadderHistory | None:
        """The entrant's ladder history, if the server has a ladder to show: its row and its
        rating path, from the board the ladder keeps (read again only when it moved)."""
        assert self.league is not None
        ladder = self.league.ladder
        if ladder is None:
            return None
        status = ladder.status()
        if not status.shown:
            return None
        return history_of(status, name, ladder.rating_path(name))

    async def _log(self, request: web.Request) -> web.Response:
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        tid, game = request.match_info["tournament"], request.match_info["game"]
        if not played_in(self.league.store.lines([tid]), session.name, tid, game):
            return _text(404, "no game of yours by this id")
        out = self.league.out
        try:
            log = await asyncio.to_thread(read_game_log, out, tid, session.name, game)
        except LogUnavailableError as error:
            return _text(404, str(error))
        return _html(pages.game_log_page(session.name, tid, game, log))

    async def _whole_log(self, request: web.Request) -> web.Response:
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        tid = request.match_info["tournament"]
        if not took_part(self.league.store.lines([tid]), session.name, tid):
            return _text(404, "no tournament of yours by this id")
        try:
            text = await asyncio.to_thread(read_log, self.league.out, tid, session.name)
        except LogUnavailableError as error:
            return _text(404, str(error))
        return _html(pages.log_page(session.name, tid, text))

    async def _upload(self, request: web.Request) -> web.Response:
        assert self.league is not None
        session = self._session(request)
        if session is None:
            return _see_other("/author/login")
        versions = self.league.versions
        cap = versions.limits.max_bytes
        if request.content_type != "multipart/form-data":
            return _text(400, "send the archive with the page's form (multipart/form-data)")
        sent_csrf, data = "", None
        async for part in await request.multipart():
            if not isinstance(part, BodyPartReader):
                continue
            if part.name == "csrf":
                sent_csrf = (await part.read(decode=False)).decode("utf-8", "replace")
            elif part.name == "archive":
                if not csrf_ok(session, sent_csrf):  # nothing read of a forged form's file
                    break
                data = await _read_capped(part, cap)
        if not csrf_ok(session, sent_csrf):
            return _text(403, "the form is not this session's (its CSRF token is missing)")
        if data is None:
            return _text(400, "no archive was sent (choose a .tar.gz file)")
        verdict, said = await self._submit(versions, session.name, data)
        return _html(pages.verdict_page(verdict, said))

    async def _submit(
        self, versions: Versions, name: str, data: bytes
    ) -> tuple[Verdict, list[str]]:
        """Through the intake `arena submit` takes: its quotas, its unpacking, its pipeline."""
        said: list[str] = []
        refused = versions.quotas.refusal(name, len(data))
        if refused is not None:
            return versions.judged(Verdict(False, name, reason=refused)), said

        def heard(event: Event) -> None:
            if isinstance(event, Line):
                said.append(f"[{event.stage}] {event.text}")
            elif isinstance(event, Check):
                word = "passed" if event.passed else "FAILED"
                said.append(f"check {event.name}: {word} {event.detail}".rstrip())
                said.extend(f"    {line}" for line in event.log_tail)

        async def fill(archive: Path) -> None:
            await asyncio.to_thread(archive.write_bytes, data)

        outcome = await take(versions, name, len(data), fill, heard)
        if isinstance(outcome, Verdict):
            return outcome, said
        # Shielded: a browser that goes away stops waiting, not the build.
        return await asyncio.shield(outcome), said


async def _read_capped(part: BodyPartReader, cap: int) -> bytes:
    """The part's bytes, up to one past `cap` (enough for the quota to name the cap)."""
    data = bytearray()
    while len(data) <= cap and (chunk := await part.read_chunk()):
        data += chunk
    return bytes(data[: cap + 1])


def _foreign_site(request: web.Request) -> str | None:
    """The site a login came from when it is not this server (its Host), else None.

    A page elsewhere must not log its visitor in, as an author of its own: what the
    visitor then uploads, or reads, would be that author's (login CSRF). Browsers say
    where a form was sent from in Origin (every browser of the last years, on every POST
    from another site), or else in Referer; "null" (a sandboxed frame, a redirect across
    sites) is another site too. A login with neither (a script of the author's own, a
    browser that sends neither) is let through: the form carries no session to guard yet.
    The scheme is not compared, so that a proxy may end TLS in front of this server.
    """
    sent = request.headers.get("Origin") or request.headers.get("Referer")
    if sent is None:
        return None
    origin = urlsplit(sent)
    if sent == "null" or _site(origin.netloc, origin.scheme) != _site(request.host, origin.scheme):
        return printable(sent, 100)
    return None


def _site(netloc: str, scheme: str) -> tuple[str, int | None]:
    """A host and port as compared (a default port said or not is the same site)."""
    parts = urlsplit(f"//{netloc}")
    try:
        port = parts.port
    except ValueError:  # not a port: no site that matches
        return "", -1
    return (parts.hostname or ""), port or _DEFAULT_PORTS.get(scheme)


def _too_many(refused: Refusal) -> web.Response:
    """429, saying when to try again, in words and in Retry-After."""
    when = time.strftime("%H:%M:%S UTC", time.gmtime(time.time() + refused.wait))
    said = (
        f"Too many failed logins for {refused.whose}: try again in {refused.words()} "
        f"(after {when})."
    )
    response = _html(pages.login_page(said), status=429)
    response.headers["Retry-After"] = str(max(1, math.ceil(refused.wait)))
    return response


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html", headers=_PRIVATE)


def _text(status: int, text: str) -> web.Response:
    return web.Response(
        status=status, text=text + "\n", content_type="text/plain", headers=_PRIVATE
    )


def _see_other(where: str) -> web.Response:
    return web.Response(status=303, headers={"Location": where, **_PRIVATE})
