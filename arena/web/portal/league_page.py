"""The league's public page (`/league`), in the live page's dark style and fit for a phone.

Anyone may read it: the league's leaderboard, the ladder and the finished games, each
linked to its replay. It is drawn with the live page's and the replays' one style sheet
(`static/style.css`, inlined: the page loads nothing else and runs no script), its tables
made to fit their panel at any width down to a 390 px phone: a name or a list of names
wraps rather than widen the page. Everything a bot or its author wrote goes through
`author_html.shown`, as on the author's pages.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from arena.records import GameLine, LeaderboardRow
from arena.tournament.results.final_record import FinalRecord, FinalState
from arena.web.ladder_source import LadderStatusView
from arena.web.portal.author_html import ladder_section, leaderboard, link, replay_href, shown
from arena.web.static_files import static_text


def _when(stamp: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(stamp)) + " UTC" if stamp else ""


def final_section(record: FinalRecord) -> str:
    """The season's final: its standings with the batch fit's intervals once it finished, its
    field while it plays (or after a stop)."""
    finished = record.state is FinalState.FINISHED
    level = f", {record.level:.0%} intervals" if record.level is not None and finished else ""
    said = {
        FinalState.PLAYING: "is being played; submissions are closed until it ends",
        FinalState.FINISHED: f"ended {_when(record.ended_at)}: the season's final standings",
        FinalState.STOPPED: "was stopped before its end",
    }[record.state]
    head = "<tr><th>#</th><th>bot</th><th>version</th><th>strength</th><th>interval</th>"
    head += "<th>places</th><th>games</th><th>wins</th></tr>"
    body = "".join(
        f"<tr><td>{place}</td><td>{shown(e.name)}</td><td>v{e.version}</td>"
        + (
            f"<td>{e.strength:.2f}</td><td>{e.low:.2f} .. {e.high:.2f}</td>"
            f"<td>{e.rank_low}-{e.rank_high}</td>"
            if finished and e.strength is not None and e.low is not None and e.high is not None
            else "<td></td><td></td><td></td>"
        )
        + f"<td>{e.games}</td><td>{e.wins}</td></tr>"
        for place, e in enumerate(record.entrants, start=1)
    )
    return (
        f"<section class=panel><h2>The season's final{level}</h2>"
        f"<p>{shown(record.tournament)} {said}.</p>"
        f"<table id=final>{head}{body}</table></section>"
    )


def public_page(
    rows: Sequence[LeaderboardRow],
    games: Sequence[tuple[str, GameLine]],
    ladder: LadderStatusView | None = None,
    final: FinalRecord | None = None,
) -> str:
    listed = "".join(
        f"<tr><td>{shown(tid)}</td><td><a href='{link(replay_href(tid, g.game))}'>"
        f"{shown(g.game)}</a></td><td>{shown(', '.join(g.ranking))}</td>"
        f"<td>{_when(g.started)}</td></tr>"
        for tid, g in games
    )
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Perudo Arena: the league</title><style>{static_text("style.css")}</style></head>
<body class="pages"><header><h1>Perudo Arena <span class="sub">the league</span></h1>
<p class="figures"><a href="/author">Author's page (log in)</a> <a href="/">Live page</a></p>
</header><main>
{final_section(final) if final is not None else ""}
<section class="panel"><h2>Leaderboard</h2>{leaderboard(rows)}</section>
{ladder_section(ladder) if ladder is not None else ""}
<section class="panel"><h2>Finished games</h2>
<table id=games><tr><th>tournament</th><th>game</th><th>finish (winner first)</th>
<th>started</th></tr>{listed}</table></section>
</main></body></html>
"""
