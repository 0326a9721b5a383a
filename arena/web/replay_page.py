"""HTML replays: one file per game that opens from disk, and an index of a tournament's games.

Each page holds its own style, the live page's renderer and the game's
events (`spectator.replay_events`), so it needs no server and no network.
Bot names are the bots' own text: in the page's data they are JSON with
every `<` escaped (no name can end the script), and the renderer only ever
sets them as text; in the index they are HTML-escaped.
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass
from pathlib import Path

from arena.errors import ArenaError
from arena.records import FaultEvent, Json, RecordError, Replay
from arena.web.spectator import replay_events
from arena.web.static_files import static_text


class ReplayPageError(ArenaError, ValueError):
    """The file asked for is not a replay the arena wrote: the message says what is wrong."""


def read_replay(path: Path) -> Replay:
    try:
        return Replay.from_json(json.loads(path.read_text()))
    except (OSError, UnicodeDecodeError) as error:
        raise ReplayPageError(f"cannot read {path}: {error}") from None
    except (ValueError, RecordError) as error:  # JSON, or a record, that is no replay
        raise ReplayPageError(f"{path} is not a replay: {error}") from None


def _script_json(data: Json) -> str:
    """JSON that can sit inside a <script> element whatever its strings hold."""
    return json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")


def replay_html(replay: Replay, tournament: str = "") -> str:
    data = {"game": replay.game, "tournament": tournament, "events": replay_events(replay)}
    parts = {
        "__TITLE__": html.escape(replay.game),
        "__STYLE__": static_text("style.css"),
        "__DATA__": _script_json(data),
        "__RENDER__": static_text("render.js"),
        "__REPLAY__": static_text("replay.js"),
    }
    page = static_text("replay.html")
    for key, value in parts.items():  # each once, in this order: no part holds a later key
        page = page.replace(key, value, 1)
    return page


def replay_page(path: Path) -> str:
    """The HTML replay of the replay file at `path` (results/<tournament>/replays/<game>.json)."""
    tournament = path.parent.parent.name if path.parent.name == "replays" else ""
    return replay_html(read_replay(path), tournament)


@dataclass(frozen=True, slots=True)
class Pages:
    folder: Path
    games: int
    problems: tuple[str, ...]
    """Replays that could not be made into pages, each with why."""


def write_pages(tournament: Path, standings: list[Json]) -> Pages:
    """`html/index.html` and one page per game of a tournament folder's replays.

    A replay that cannot be read is named in the index and in `problems`
    rather than stopping the rest.
    """
    out = tournament / "html"
    out.mkdir(exist_ok=True)
    problems: list[str] = []
    rows: list[str] = []
    for path in sorted((tournament / "replays").glob("*.json")):
        try:
            replay = read_replay(path)
        except ReplayPageError as error:
            problems.append(str(error))
            continue
        _write(out / f"{path.stem}.html", replay_html(replay, tournament.name))
        rows.append(_index_row(path.stem, replay))
    _write(out / "index.html", _index(tournament.name, rows, standings, problems))
    return Pages(out, len(rows), tuple(problems))


def _write(path: Path, text: str) -> None:
    """Whole or not at all: a reader never opens half a page."""
    part = path.with_name(path.name + ".tmp")
    try:
        part.write_text(text)
        os.replace(part, path)
    except OSError:
        part.unlink(missing_ok=True)  # a full disk leaves no half page behind
        raise


def _index_row(stem: str, replay: Replay) -> str:
    e = html.escape
    count = sum(isinstance(event, FaultEvent) for event in replay.events)
    faults = f'<span class="bad">{count}</span>' if count else "0"
    winner = replay.ranking[0] if replay.ranking else ""
    return (
        f'<tr><td><a href="{e(stem)}.html">{e(replay.game)}</a></td>'
        f"<td>{e(', '.join(replay.players))}</td><td>{e(winner)}</td>"
        f'<td class="num">{faults}</td></tr>'
    )


def _index(name: str, rows: list[str], standings: list[Json], problems: list[str]) -> str:
    e = html.escape
    sure = any("rank_range" in s for s in standings)
    board = "".join(
        f'<tr><td>{s["rank"]}</td><td class="bot">{e(str(s["bot"]))}</td>'
        f"<td>{s['rating']:.2f}</td>"
        f'<td class="give2">{s["mu"]:.2f}</td><td class="give2">{s["sigma"]:.2f}</td>'
        f"{_confidence(s) if sure else ''}"
        f'<td class="give1">{s["games"]}</td><td class="give2">{s["wins"]}</td>'
        f'<td class="give1">{s["average_place"]:.2f}</td><td>{s["faults"]}</td></tr>'
        for s in standings
    )
    headers = ("ranks", "P1", "above next") if sure else ()
    missing = "".join(f"<li>{e(p)}</li>" for p in problems)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Perudo Arena: {e(name)}</title><style>{static_text("style.css")}</style></head>
<body class="index pages"><header><h1>Perudo Arena <span class="sub">{e(name)}</span></h1></header>
<main>
<section class="panel fit"><h2>Leaderboard</h2><table id="standings"><thead><tr><th>#</th>
<th>bot</th><th>rating</th><th class="give2">mu</th><th class="give2">sigma</th>
{"".join(f"<th>{h}</th>" for h in headers)}<th class="give1">games</th>
<th class="give2">wins</th><th class="give1">place</th><th>faults</th>
</tr></thead><tbody>{board}</tbody></table></section>
<section class="panel"><h2>Games ({len(rows)})</h2><table class="games"><thead><tr><th>game</th>
<th>players (seat order)</th><th>winner</th><th class="num">faults</th></tr></thead>
<tbody>{"".join(rows)}
</tbody></table>{f'<h2>Not made</h2><ul class="feed bad">{missing}</ul>' if missing else ""}
</section></main></body></html>
"""


def _confidence(row: Json) -> str:
    """The batch fit's cells of a row: rank range, P(rank 1), and P(above the next bot)."""
    above = row.get("p_above_next")
    return (
        f"<td>{html.escape(str(row.get('rank_range', '')))}</td>"
        f"<td>{100 * row.get('p_first', 0):.0f}%</td>"
        f"<td>{'' if above is None else f'{100 * above:.0f}%'}</td>"
    )
