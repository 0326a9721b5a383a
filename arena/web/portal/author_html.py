"""The league's pages as HTML: the login, the author's page, a verdict, a log.

Everything a bot or its author wrote (names, build logs, check reports, a
bot's log, a refusal's reason) goes through `shown`: its unprintable
characters escaped as the terminal shows them (`arena.text.printable`), then
HTML-escaped, so nothing a bot wrote is ever markup. The pages load no
script; the forms carry the session's CSRF token.
"""

from __future__ import annotations

import functools
import html
import json
import time
from collections.abc import Sequence
from urllib.parse import quote

from arena.checkbot.verdict import Check
from arena.protocol.faults import FaultKind
from arena.records import LeaderboardRow
from arena.store.submissions import SubmissionRow
from arena.submissions.report import check_from_json
from arena.submissions.versions import Verdict
from arena.text import printable
from arena.web.ladder_source import LadderStatusView
from arena.web.ladder_view import LadderHistory, state_word
from arena.web.league_view import GameLog
from arena.web.portal.author_games import (
    ANY_FAULT,
    NO_FAULT,
    AuthorGame,
    GameFilter,
    HeadToHead,
    Page,
)
from arena.web.static_files import static_text


def shown(text: object) -> str:
    return html.escape(printable(str(text)))


def shown_lines(text: str) -> str:
    """Lines of text (a log), each shown as `shown` shows one: its line breaks kept."""
    return "\n".join(shown(line) for line in text.split("\n"))


def link(path: str) -> str:
    """A path of ids, each quoted: an id is the store's, but never trusted as markup."""
    return html.escape(path, quote=True)


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(stamp)) + " UTC" if stamp else ""


@functools.cache
def _style() -> str:
    """The live page's style and the league pages' own on top (read once)."""
    return static_text("style.css") + static_text("pages.css")


def page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html lang=en><head><meta charset=utf-8>"
        f'<meta name=viewport content="width=device-width"><title>{shown(title)}</title>'
        f"<style>{_style()}</style></head><body><div class=sheet>{body}</div></body></html>"
    )


def replay_href(tournament: str, game: str) -> str:
    return f"/league/replay/{quote(tournament, safe='')}/{quote(game, safe='')}"


def log_href(tournament: str, game: str | None = None) -> str:
    """A game's part of the entrant's log; without `game`, its whole log of the tournament."""
    whole = f"/author/log/{quote(tournament, safe='')}"
    return whole if game is None else f"{whole}/{quote(game, safe='')}"


def leaderboard(rows: Sequence[LeaderboardRow], mark: str = "") -> str:
    if not rows:
        return "<p>No game has been played in the league yet.</p>"
    head = "<tr><th>#</th><th>bot</th><th>rating</th><th>games</th><th>wins</th>"
    head += "<th>rank range</th><th>P(rank 1)</th></tr>"
    body = "".join(
        f"<tr{' class=ok' if r.bot == mark else ''}><td>{r.rank}</td><td>{shown(r.bot)}</td>"
        f"<td>{r.rating:.2f}</td><td>{r.games}</td><td>{r.wins}</td>"
        f"<td>{shown(r.rank_range or '')}</td>"
        f"<td>{'' if r.p_first is None else f'{100 * r.p_first:.0f}%'}</td></tr>"
        for r in rows
    )
    return f"<table id=leaderboard>{head}{body}</table>"


def ladder_board(rows: Sequence[LeaderboardRow], mark: str = "") -> str:
    """The ladder's own board: TrueSkill over its games alone."""
    head = "<tr><th>#</th><th>bot</th><th>rating</th><th>mu</th><th>sigma</th><th>games</th></tr>"
    body = "".join(
        f"<tr{' class=ok' if r.bot == mark else ''}><td>{r.rank}</td><td>{shown(r.bot)}</td>"
        f"<td>{r.rating:.2f}</td><td>{r.mu:.2f}</td><td>{r.sigma:.2f}</td><td>{r.games}</td></tr>"
        for r in rows
    )
    return f"<table id=ladder-standings>{head}{body}</table>"


def ladder_section(status: LadderStatusView) -> str:
    """The public page's ladder: its board, its round in play, its latest games."""
    if status.tables:
        playing = "In play: " + "; ".join(
            f"{shown(t.round)}, {shown(', '.join(t.seats))}" for t in status.tables
        )
        playing += "."
    else:
        playing = "No table in play."
    trouble = f"<p class=bad>Last trouble: {shown(status.error)}</p>" if status.error else ""
    latest = "".join(
        f"<tr><td>{shown(g.round)}</td><td><a href='{link(replay_href(g.round, g.game_id))}'>"
        f"{shown(g.game_id)}</a></td><td>{shown(', '.join(g.ranking))}</td></tr>"
        for g in reversed(status.latest)
    )
    return (
        f"<section id=ladder><h2>Ladder</h2><p>The ladder is {state_word(status)} "
        f"({status.tables_said}; rating = mu - 3 sigma of each entrant's version "
        "over its ladder games).</p>"
        f"<p id=ladder-table>{playing}</p>{trouble}{ladder_board(status.standings)}"
        "<h3>Latest ladder games</h3><table id=ladder-games><tr><th>round</th><th>game</th>"
        f"<th>finish (winner first)</th></tr>{latest}</table></section>"
    )


def login_page(error: str = "") -> str:
    said = f"<p class=bad id=error>{shown(error)}</p>" if error else ""
    body = (
        f"<h1>Author's page: log in</h1>{said}"
        "<form method=post action='/author/login'>"
        "<p><label>Entrant's name <input name=name autocomplete=username required></label></p>"
        "<p><label>Token <input name=token type=password autocomplete=current-password "
        "required></label></p><p><button type=submit>Log in</button></p></form>"
        "<p>The token is the one <code>arena token add</code> gave the organiser for you.</p>"
    )
    return page("Log in", body)


def _checks(report: str) -> str:
    try:
        checks = [check_from_json(item) for item in json.loads(report)]
    except (ValueError, TypeError, KeyError):
        return "<p>(the check report cannot be read)</p>"
    if not checks:
        return "<p>No check was run.</p>"
    return "<ul class=checks>" + "".join(_check(c) for c in checks) + "</ul>"


def _check(check: Check) -> str:
    word = "<span class=ok>passed</span>" if check.passed else "<span class=bad>failed</span>"
    said = f": {shown(check.detail)}" if check.detail else ""
    warned = f" (note: {shown(check.warning)})" if check.warning else ""
    tail = f"<pre>{shown_lines(chr(10).join(check.log_tail))}</pre>" if check.log_tail else ""
    return f"<li>{shown(check.name)} {word}{said}{warned}{tail}</li>"


def _version(row: SubmissionRow, playing: int | None) -> str:
    label = f"version {row.version}" if row.version is not None else "not a version"
    state = row.state.value + (" (withdrawn)" if row.withdrawn else "")
    state += " - playing" if row.version is not None and row.version == playing else ""
    reason = f"<p>{shown(row.reason)}</p>" if row.reason else ""
    return (
        f"<section class=version><h3>{label}: {shown(state)}</h3>"
        f"<p>sent {_when(row.received)}, {row.size} bytes, {row.files} files, "
        f"sha256 <code>{shown(row.sha256[:16])}</code></p>{reason}"
        f"<details><summary>build log</summary><pre class=build-log>{shown_lines(row.build_log)}"
        f"</pre></details><details><summary>check report</summary>"
        f"{_checks(row.check_report)}</details></section>"
    )


def _history(ratings: Sequence[float], ident: str = "rating-history") -> str:
    """The rating after each game as a small line drawing (no script, no data from a bot)."""
    if len(ratings) < 2:
        return "<p>Too few games for a curve.</p>" if not ratings else ""
    low, high = min(ratings), max(ratings)
    span = (high - low) or 1.0
    width, height = 480, 120
    every = max(1, len(ratings) // width)  # a point a pixel: a season's curve stays small
    kept = [*range(0, len(ratings) - 1, every), len(ratings) - 1]
    points = " ".join(
        f"{i * width / (len(ratings) - 1):.1f},{height - (ratings[i] - low) * height / span:.1f}"
        for i in kept
    )
    return (
        f"<svg id={ident} width={width} height={height + 10} role=img "
        f"aria-label='rating after each game, {low:.2f} to {high:.2f}'>"
        f"<polyline fill=none stroke='#4fc3f7' stroke-width=2 points='{points}'/></svg>"
        f"<p>from {ratings[0]:.2f} to {ratings[-1]:.2f} over {len(ratings)} games "
        f"(lowest {low:.2f}, highest {high:.2f})</p>"
    )


def _head_to_head(rows: Sequence[HeadToHead]) -> str:
    """Against each opponent: games, finished ahead, and the share's 95% Wilson interval."""
    if not rows:
        return "<p>No game against another bot yet.</p>"
    head = (
        "<tr><th>against</th><th>games</th><th>ahead</th><th>share</th><th>95% interval</th></tr>"
    )
    body = "".join(
        f"<tr><td>{shown(r.opponent)}</td><td>{r.games}</td><td>{r.ahead}</td>"
        f"<td>{100 * r.share:.0f}%</td><td>{100 * r.low:.0f}-{100 * r.high:.0f}%</td></tr>"
        for r in rows
    )
    return f"<div class=wide><table id=head-to-head>{head}{body}</table></div>"


def author_page(
    name: str,
    csrf: str,
    versions: Sequence[SubmissionRow],
    playing: int | None,
    games: Page,
    wanted: GameFilter,
    opponents: Sequence[HeadToHead],
    ratings: Sequence[float],
    board: Sequence[LeaderboardRow],
    ladder: LadderHistory | None = None,
) -> str:
    """Versions first (what the author acts on), then how they stand, then the games."""
    token = html.escape(csrf, quote=True)
    mine = [r for r in board if r.bot == name]
    body = (
        f"<header><h1>{shown(name)}</h1><nav>"
        f"<form class=inline method=post action='/author/logout'>"
        f"<input type=hidden name=csrf value='{token}'><button>Log out</button></form>"
        " <a href='/league'>the league</a> <a href='/author/requests'>test games</a>"
        "</nav></header><main class=pages>"
        f"<h2>Versions</h2>{''.join(_version(r, playing) for r in versions) or '<p>None.</p>'}"
        "<h3>Send a version</h3><form method=post action='/author/upload' "
        "enctype=multipart/form-data><input type=hidden name=csrf value='" + token + "'>"
        "<input type=file name=archive accept='.tar.gz,.tgz' required> "
        "<button type=submit>Submit</button></form><p>The bot's folder as a .tar.gz archive, its "
        "<code>bot.toml</code> at the top (<code>tar czf bot.tar.gz -C FOLDER .</code>); "
        "it is taken in, built and checked as <code>arena submit</code>'s is.</p>"
        f"<h2>Standing</h2>{leaderboard(mine, mark=name)}{_history(ratings)}"
        f"<h3>Against each opponent</h3><p>Games against it, and how often it finished "
        f"ahead of it (every game, ladder and nights).</p>{_head_to_head(opponents)}"
        f"{_ladder(name, ladder) if ladder is not None else ''}"
        "<h2>Games</h2><p><a href='/author/export.jsonl' download>Download your games</a> "
        "(every one, a JSON line each: its replay's fields, as <code>arena league export "
        "--author</code> writes them)</p>"
        f"{_filter_form(versions, opponents, wanted)}"
        f"{_games(name, games, wanted)}</main>"
    )
    return page(name, body)


def _filter_form(
    versions: Sequence[SubmissionRow], opponents: Sequence[HeadToHead], wanted: GameFilter
) -> str:
    """A plain GET form: the filter is the page's address, so it can be kept and shared."""
    met = [row.opponent for row in opponents]
    numbers = sorted({r.version for r in versions if r.version is not None}, reverse=True)
    choices = (
        ("version", "every version", [(str(n), f"version {n}") for n in numbers], wanted.version),
        ("opponent", "any opponent", [(o, o) for o in met], wanted.opponent),
        ("result", "any result", [("won", "won"), ("lost", "not won")], wanted.result),
        (
            "fault",
            "faults or not",
            [(ANY_FAULT, "any fault"), (NO_FAULT, "no fault")]
            + [(k.value, k.value.replace("_", " ")) for k in FaultKind],
            wanted.fault,
        ),
    )
    selects = "".join(
        f"<label>{key} <select name={key}><option value=''>{every}</option>"
        + "".join(
            f"<option value='{link(value)}'{' selected' if str(chosen) == value else ''}>"
            f"{shown(label)}</option>"
            for value, label in options
        )
        + "</select></label> "
        for key, every, options, chosen in choices
    )
    return f"<form id=filter method=get action='/author'>{selects}<button>Show</button></form>"


def fault_href(tournament: str, game: str, number: int) -> str:
    """The page of the entrant's `number`-th (from 1) fault in a game."""
    return f"/author/fault/{quote(tournament, safe='')}/{quote(game, safe='')}/{number}"


def _faults(game: AuthorGame) -> str:
    return " ".join(
        f"<a class=fault href='{link(fault_href(game.tournament, game.game, n))}'>"
        f"{shown(f.fault.kind.value.replace('_', ' '))}</a>"
        for n, f in enumerate(game.faults, start=1)
    )


def _games(name: str, games: Page, wanted: GameFilter) -> str:
    """One page of the entrant's games, each with the version that played it, its replay,
    its faults' pages and the entrant's own log."""
    played = "".join(
        f"<tr><td>{shown(g.tournament)}</td><td><a href='{link(replay_href(g.tournament, g.game))}'"
        f">{shown(g.game)}</a></td><td>{'' if g.version is None else f'v{g.version}'}</td>"
        f"<td>{g.place} of {len(g.players)}</td>"
        f"<td>{shown(', '.join(g.opponents(name)))}</td><td>{_faults(g)}</td>"
        f"<td><a class=log href='{link(log_href(g.tournament, g.game))}'>stderr</a></td></tr>"
        for g in games.games
    )
    turns = [
        f"<a rel={rel} href='/author{link(wanted.query(page=games.number + step))}'>{word}</a>"
        for rel, step, word in (("prev", -1, "newer"), ("next", 1, "older"))
        if 1 <= games.number + step <= games.pages
    ]
    said = (
        f"<p id=games-said>{games.kept} games{' kept by the filter' if wanted.query() else ''}, "
        f"newest first; page {games.number} of {games.pages}. {' '.join(turns)}</p>"
    )
    return (
        f"{said}<div class=wide><table id=games><tr><th>tournament</th><th>game (replay)</th>"
        "<th>version</th><th>place</th><th>with</th><th>faults</th><th>its log</th></tr>"
        f"{played}</table></div>"
    )


def _ladder(name: str, ladder: LadderHistory) -> str:
    """The entrant's ladder: its row of the ladder's board and its ladder rating after each of
    its ladder games (the games themselves are in the one list of games, by round)."""
    row = ladder_board([ladder.row], mark=name) if ladder.row is not None else ""
    if not ladder.games:
        return f"<h2>Ladder</h2>{row}<p>No ladder game yet.</p>"
    return (
        f"<h2>Ladder</h2><p>Its rating on the ladder, TrueSkill over the ladder's games alone, "
        f"after each of its own {ladder.games}.</p>{row}"
        f"{_history(ladder.ratings, 'ladder-rating-history')}"
    )


def verdict_page(verdict: Verdict, lines: Sequence[str]) -> str:
    style = "ok" if verdict.accepted else "bad"
    body = (
        f"<h1>Verdict</h1><p id=verdict class={style}>{shown(verdict.line())}</p>"
        f"<pre>{shown_lines(chr(10).join(lines))}</pre>"
        "<p><a href='/author'>Back to your page</a></p>"
    )
    return page("Verdict", body)


def log_page(name: str, tournament: str, text: str) -> str:
    body = (
        f"<h1>{shown(name)} in {shown(tournament)}</h1>"
        "<p>Its standard output and error for the whole tournament (every game it played "
        "there, and what it wrote between them).</p>"
        f"<pre id=log>{shown_lines(text)}</pre><p><a href='/author'>Back</a></p>"
    )
    return page("Log", body)


def game_log_page(name: str, tournament: str, game: str, log: GameLog) -> str:
    if log.instead is None:
        said = (
            "<p id=part>What it wrote to its standard output and error while this game was "
            "in play (a bot that plays several games at once writes theirs in it too).</p>"
        )
    else:
        said = (
            f"<p id=instead class=bad>This game's part of the log is not known: "
            f"{shown(log.instead)}. Its whole log of the tournament is shown.</p>"
        )
    body = (
        f"<h1>{shown(name)} in {shown(tournament)}, game {shown(game)}</h1>{said}"
        f"<pre id=log>{shown_lines(log.text)}</pre><p><a id=whole "
        f"href='{link(log_href(tournament))}'>Its whole log of the tournament</a> &middot; "
        f"<a href='{link(replay_href(tournament, game))}'>the game's replay</a> &middot; "
        "<a href='/author'>Back</a></p>"
    )
    return page("Log", body)
