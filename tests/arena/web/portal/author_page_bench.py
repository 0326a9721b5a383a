"""How long the author's page takes for an author of many games: a benchmark, not a test.

    .venv/bin/python tests/arena/web/portal/author_page_bench.py [GAMES] [FOLDER]

makes a league store of GAMES games (10,000 by default) of alice against
three others, 100 to a night, her version changing every 40 nights and a
timeout in every eleventh game; serves it on a real league server with its
pages (`author_harness.serving`); and prints the time of GET /author, with a
filter and on a later page, warm, then right after each of five new games
(the board and curves then being made again in the background). The numbers
go in docs/submission-league.md, never in a test's limit.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # author_harness

from author_harness import Played, client, serving

from arena.protocol.faults import Fault, FaultKind, FaultRecord
from arena.records import GameLine
from arena.referee.service.auth import new_token, token_hash
from arena.store import open_store

PER_NIGHT = 100
OTHERS = ("bob", "carol", "dave")
LOOKS = 10


def league_of(folder: Path, games: int) -> Played:
    league = folder / "league" / "league.sqlite"
    league.parent.mkdir(parents=True, exist_ok=True)
    store = open_store(league)
    token = new_token()
    store.set_entrant("alice", token_hash(token))
    for night in range(games // PER_NIGHT):
        tid = f"night-{night:06d}"
        pin = {"number": 1 + night // 40, "sha256": "s", "source": "/kept"}
        bots = {n: {"path": n, "files_sha256": "x", "version": pin} for n in ("alice", *OTHERS)}
        store.add_tournament(tid, {"id": tid, "bots": bots}, started=1e9 + night)
        for i in range(PER_NIGHT):
            other = OTHERS[(night + i) % len(OTHERS)]
            ranking = ("alice", other) if i % 2 else (other, "alice")
            late = Fault(FaultKind.TIMEOUT, "late")
            faults = (FaultRecord(f"g{i:03d}", "alice", 0, 1, late),) if i % 11 == 0 else ()
            line = GameLine(f"g{i:03d}", i, ("alice", other), ranking, faults, {})
            store.add_game(tid, line)
    store.close()
    return Played(league, folder / "results", {"alice": token}, [], None)  # type: ignore[arg-type]


async def measure(played: Played) -> None:
    token = played.tokens["alice"]
    async with serving(played) as site, client() as http:
        login = {"name": "alice", "token": token}
        started = time.perf_counter()
        async with http.post(f"{site.url}/author/login", data=login) as reply:
            assert reply.status == 200
        print(f"log in and the first page (all made): {time.perf_counter() - started:.1f} s")
        for query in ("", "?opponent=bob&result=won", "?fault=timeout&page=3"):
            times = []
            for _ in range(LOOKS):
                started = time.perf_counter()
                async with http.get(f"{site.url}/author{query}") as reply:
                    size = len(await reply.read())
                times.append(1000 * (time.perf_counter() - started))
            print(f"/author{query}: median {statistics.median(times):.0f} ms, {size} bytes")
        for k in range(5):
            tid = f"night-new-{k}"
            site.server.store.add_tournament(tid, {"id": tid, "bots": {}}, started=2e9 + k)
            line = GameLine("g0", 0, ("alice", "bob"), ("alice", "bob"), (), {})
            site.server.store.add_game(tid, line)
            started = time.perf_counter()
            async with http.get(f"{site.url}/author") as reply:
                await reply.read()
            print(f"/author after a new game: {1000 * (time.perf_counter() - started):.0f} ms")


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as kept:
        folder = Path(sys.argv[2]) if len(sys.argv) > 2 else Path(kept)
        asyncio.run(measure(league_of(folder, games)))


if __name__ == "__main__":  # the board's process is spawned: it imports this file again
    main()
