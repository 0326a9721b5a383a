"""A fault's page: the position the bot was asked about, its reply or silence, where the
time went, its own log lines of the game and the tail of its log, and the replay at that
step. Everything a bot wrote is shown through `author_html.shown`, never as markup."""

from __future__ import annotations

from arena.records import GameLine
from arena.web.league_view import GameLog
from arena.web.portal.author_html import (
    fault_href,
    link,
    log_href,
    page,
    replay_href,
    shown,
    shown_lines,
)
from arena.web.portal.fault_view import FaultView

STDERR_LINES = 40
"""Lines of the end of the bot's whole log shown under the fault."""


def _ms(value: float | None, absent: str = "not measured") -> str:
    return absent if value is None else f"{value:.0f} ms"


def _position(view: FaultView) -> str:
    dice = " ".join(str(face) for face in view.dice) or "(none known)"
    bids = "".join(
        f"<tr><td>{shown(b.player)}</td><td>{shown(b.action)}</td><td>{b.ms:.0f} ms</td></tr>"
        for b in view.bids
    )
    said = (
        f"<div class=wide><table id=bids><tr><th>who</th><th>decision</th><th>its time</th></tr>"
        f"{bids}</table></div>"
        if bids
        else "<p id=bids>No bid yet: it was the round's first decision.</p>"
    )
    return (
        f"<h2>The position</h2><dl class=facts><dt>round</dt><dd id=round>{view.round}</dd>"
        f"<dt>its dice</dt><dd class=hand id=dice>{shown(dice)}</dd>"
        f"<dt>dice in play</dt><dd>{view.dice_in_play}</dd></dl>"
        f"<h3>The round's decisions before it</h3>{said}"
    )


def _reply(view: FaultView) -> str:
    sent = view.event.sent
    reply = f"<pre id=reply>{shown(sent)}</pre>" if sent else "<p id=reply>Nothing: silence.</p>"
    late = view.late
    held = (
        f"{late.wall_ms - late.bot_ms:.0f} ms (the referee's clock saw {late.wall_ms:.0f} ms, "
        f"the bot's own share {late.bot_ms:.0f} ms)"
        if late is not None
        else "none recorded"
    )
    earlier = view.earlier_ms
    pace = (
        f"{len(earlier)} earlier decisions in this game, the slowest {max(earlier):.0f} ms"
        if earlier
        else "no earlier decision in this game"
    )
    event = view.event
    return (
        f"<h2>Its reply</h2>{reply}<h2>Where the time went</h2><dl class=facts>"
        f"<dt>wall time</dt><dd id=wall>{_ms(event.wall_ms, 'not a timeout')}</dd>"
        f"<dt>referee hold-up</dt><dd id=held>{held}</dd>"
        f"<dt>link credit</dt><dd id=credit>{_ms(event.credit_ms, 'none')}</dd>"
        f"<dt>link round trip</dt><dd>{_ms(event.rtt_ms)}</dd>"
        f"<dt>its CPU</dt><dd id=cpu>{_ms(event.cpu_ms)}</dd>"
        f"<dt>waiting for a CPU</dt><dd>{_ms(event.cpu_wait_ms)}</dd>"
        f"<dt>its pace</dt><dd>{pace}</dd></dl>"
    )


def fault_page(
    name: str, tournament: str, game: str, view: FaultView, log: GameLog, tail: str
) -> str:
    """`log`: its part of its log for the game; `tail`: the end of its whole log."""
    kind = view.record.fault.kind.value.replace("_", " ")
    replay = f"{replay_href(tournament, game)}#step={view.step}"
    part = (
        "<p>What it wrote while this game was in play.</p>"
        if log.instead is None and log.text.strip()
        else "<p>It wrote nothing while this game was in play.</p>"
        if log.instead is None
        else f"<p class=bad>This game's part of its log is not known: {shown(log.instead)}.</p>"
    )
    last = "\n".join(tail.rstrip("\n").split("\n")[-STDERR_LINES:])
    body = (
        f"<header><h1>{shown(name)}: {shown(kind)}</h1><nav><a href='/author'>your page</a>"
        f"<a id=replay href='{link(replay)}'>the replay at this step</a></nav></header>"
        f"<main class=pages><p id=detail>In {shown(tournament)}, game {shown(game)}: "
        f"<span class=bad>{shown(view.record.fault.detail)}</span></p>"
        f"{_position(view)}{_reply(view)}"
        f"<h2>Its log in this game</h2>{part}"
        f"<pre id=game-log>{shown_lines(log.text if log.instead is None else '')}</pre>"
        f"<h2>The end of its log</h2><p>The last {STDERR_LINES} lines of its standard output "
        f"and error in the tournament (<a href='{link(log_href(tournament))}'>all of it</a>)."
        f"</p><pre id=stderr-tail>{shown_lines(last)}</pre></main>"
    )
    return page(f"{name}: {kind}", body)


def with_fault_links(replay: str, tournament: str, line: GameLine) -> str:
    """A served replay with a link to each fault's page under it: each opens for its bot's
    author alone (the page asks for the author's login), so the replay may show them all."""
    if not line.faults:
        return replay
    counted: dict[str, int] = {}
    links = []
    for fault in line.faults:
        counted[fault.bot] = number = counted.get(fault.bot, 0) + 1
        href = fault_href(tournament, line.game, number)
        kind = fault.fault.kind.value.replace("_", " ")
        links.append(f"<a class=fault href='{link(href)}'>{shown(fault.bot)}: {shown(kind)}</a>")
    nav = (
        "<nav id=faults style='padding:0.6rem 1rem'>Faults (each explained to its bot's "
        f"author): {' &middot; '.join(links)}</nav>"
    )
    head, body_end, tail = replay.rpartition("</body>")
    return head + nav + body_end + tail if body_end else replay + nav
