"""`/author/export.jsonl`: an author's own games, as `arena league export --author` writes them.

The lines are the export's (`arena.tournament.results.replay_lines`: each
game's replay file as it is on disk, with its tournament), chosen from the season the pages keep
(`league_cache.LeagueLines`, in the store's order) by the session's entrant
alone, never by anything the request says. They are streamed a batch at a
time, each batch read from disk on a thread of its own, so a season of
thousands of games costs the server a batch of replays in memory and never
holds its event loop. A game whose replay was pruned, or cannot be read, is
left out, as the export leaves it out.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from pathlib import Path

from aiohttp import web

from arena.records import GameLine
from arena.tournament.results.replay_lines import write_games

BATCH = 200
"""Games read and sent at a time."""


async def stream_games(
    request: web.Request,
    lines: Sequence[tuple[str, GameLine]],
    name: str,
    out: Path,
    headers: dict[str, str],
) -> web.StreamResponse:
    """`name`'s games of `lines`, one JSON line each, streamed as they are read."""
    mine = [(tid, line) for tid, line in lines if name in line.players]
    response = web.StreamResponse(
        headers={
            **headers,
            "Content-Type": "application/x-ndjson; charset=utf-8",
            "Content-Disposition": f'attachment; filename="{name}-games.jsonl"',
        }
    )
    await response.prepare(request)
    for start in range(0, len(mine), BATCH):
        text = await asyncio.to_thread(_batch, mine[start : start + BATCH], out)
        await response.write(text.encode())
    await response.write_eof()
    return response


def _batch(games: Sequence[tuple[str, GameLine]], out: Path) -> str:
    written = io.StringIO()
    write_games(games, [out], written)
    return written.getvalue()
