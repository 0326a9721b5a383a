"""A real league with played games, and a league server with its web pages on it (the
author pages' tests, and the season archive's of a league of submitted versions).

`played_league` runs once per test module: a league server in process, the
entrants alice, bob and carol with tokens, a version of each one's bot
submitted through the Submit service, and a tournament of the submitted
versions (`arena admin start` with no --bots) at tables of two (so some
games are bob's and carol's alone), each bot writing a line of its own to
its stderr as it starts, and another on each of its turns. `serving` then
starts a league server on that league with the live page's web server and
its league pages on 127.0.0.1, port 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import re
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import grpc

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol.messages import admin as apb
from arena.protocol.messages import admin_grpc as apb_grpc
from arena.records import GameLine
from arena.referee.service.auth import new_token, token_hash
from arena.submissions.archive import pack
from arena.submissions.client import Server, submit
from arena.submissions.limits import SubmissionLimits
from arena.submissions.versions import Verdict
from arena.tournament.config import TournamentConfig
from arena.web.league_view import League
from arena.web.portal.authors import AuthorPages
from arena.web.portal.login_limits import LoginLimits
from arena.web.spectator import Spectator
from arena.web.web_server import WebServer

SAMPLES = Path(__file__).resolve().parents[2] / "sample_bots"
NAMES = ("alice", "bob", "carol")
TOURNAMENT = "night1"
SEED = "5eed" * 16


def stderr_mark(name: str) -> str:
    """The line each bot writes to its stderr as it starts, before any game: in its whole
    log, in no game's part of it. The tests look for it, or for its absence."""
    return f"{name} says: private-stderr-{name}-0x51"


def turn_mark(name: str) -> str:
    """The line each bot writes to its stderr on each of its turns: in its games' parts."""
    return f"{name} says: my-turn-{name}-0x52"


FAULTS = {
    # On its third turn, it answers a second after its move time (2 s) has run out.
    "timeout": "time.sleep(3.0)",
    # On its third turn, a bid the rules refuse: an opening on pacos, or no raise at all.
    "illegal_action": "return Bid(1, 1) if obs.standing is None else obs.standing",
    # On its third turn, it says so on stderr and dies.
    "crash": "print('crashing now', file=sys.stderr, flush=True); os._exit(3)",
    # On its third turn, it leaves without a word and without an error: its stream ends.
    "disconnect": "print('leaving now', file=sys.stderr, flush=True); os._exit(0)",
    # From its third turn on, every answer goes out as an action that is no action.
    "malformed_message": (
        "import arena.protocol.wire as wire; from arena.protocol.messages import referee as pb; "
        "wire.answer_to_proto = lambda answer: pb.Action()"
    ),
}
"""What a faulty bot does on its third turn once armed, by the fault it commits."""
FAULT_TURN = 3
ARMED = "armed"
"""The file, beside the bots' folders, whose presence arms the faulty bots: made once their
versions passed check-bot, which would refuse them for their faults."""


STALL = "stall"
"""The fault no gRPC library commits on purpose: its bot speaks HTTP/2 by hand
(harness_bots/h2_stall_bot.py) and, on its FAULT_TURN-th turn once armed, answers and then
stops reading, so the referee's next request cannot be written. It stalls on its first turn
once armed: its next request is then never written, in that game or its next, so it needs
one opponent that is still playing, not three turns of its own."""
STALLING_BOT = Path(__file__).resolve().parent / "harness_bots" / "h2_stall_bot.py"


def write_bot(folder: Path, name: str, fault: str | None = None) -> Path:
    """A folder bot: the random sample, saying its marks on stderr; with `fault` (a key of
    FAULTS, or STALL), committing that fault on its FAULT_TURN-th turn once `folder`/ARMED
    is made."""
    bot = folder / name
    bot.mkdir(parents=True)
    if fault == STALL:
        return write_stalling_bot(bot, name, folder / ARMED)
    (bot / "bot.toml").write_text(f'name = "{name}"\nrun = "python bot.py"\n')
    source = (SAMPLES / "random_bot.py").read_text()
    said = f"import sys\nprint({stderr_mark(name)!r}, file=sys.stderr, flush=True)\n"
    source = source.replace("import random\n", "import random\n" + said, 1)
    acting = "def act(obs: Observation) -> Answer:\n"
    turn = f"    print({turn_mark(name)!r}, file=sys.stderr, flush=True)\n"
    if fault is not None:
        turn += (
            f"    if obs.my_turn and os.path.exists({str(folder / ARMED)!r}):\n"
            "        TURNS.append(1)\n"
            f"    if obs.my_turn and len(TURNS) == {FAULT_TURN}:\n        {FAULTS[fault]}\n"
        )
        source = source.replace("import random\n", "import random\nimport time\nTURNS = []\n", 1)
    assert acting in source
    (bot / "bot.py").write_text(source.replace(acting, acting + turn, 1))
    return bot


def write_stalling_bot(bot: Path, name: str, armed: Path) -> Path:
    """The HTTP/2 bot in `bot`, with its marks and its arming file, playing one game at a time
    (its one stream)."""
    source = STALLING_BOT.read_text()
    for placeholder, value in (
        ("ARMED-PLACEHOLDER", str(armed)),
        ("STARTING-PLACEHOLDER", stderr_mark(name)),
        ("TURN-PLACEHOLDER", turn_mark(name)),
    ):
        assert placeholder in source
        source = source.replace(placeholder, value)
    (bot / "bot.py").write_text(source)
    (bot / "bot.toml").write_text(f'name = "{name}"\nrun = "python bot.py"\nsessions = 1\n')
    return bot


@dataclasses.dataclass(frozen=True)
class Played:
    league: Path
    out: Path
    tokens: dict[str, str]
    games: list[GameLine]
    alice_verdict: Verdict

    def without(self, name: str) -> GameLine:
        return next(g for g in self.games if name not in g.players)

    def with_(self, name: str) -> GameLine:
        return next(g for g in self.games if name in g.players)


def config(league: Path, out: Path) -> LeagueConfig:
    return LeagueConfig(
        listen="127.0.0.1:0",
        admin_listen="127.0.0.1:0",
        league=league,
        out=out,
        defaults=TournamentConfig(bots_dir=None, move_time=2.0),
        submissions=SubmissionLimits(builds_at_once=3),
    )


async def play_league(tmp: Path, faults: dict[str, str | None] | None = None) -> Played:
    """The league played; `faults`: the entrants instead of NAMES, each with the fault its
    bot commits (a key of FAULTS, or STALL), or None for one that commits none."""
    names = tuple(faults) if faults else NAMES
    league, out = tmp / "league" / "league.sqlite", tmp / "results"
    server = LeagueServer(config(league, out))
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{server.admin_port}")
    try:
        tokens = {name: new_token() for name in names}
        for name, token in tokens.items():
            server.store.set_entrant(name, token_hash(token))
        bots = tmp / "bots"
        for name in names:
            write_bot(bots, name, (faults or {}).get(name))
        address = Server(f"127.0.0.1:{server.port}")
        verdicts = await asyncio.gather(
            *(submit(address, tokens[n], pack(bots / n), lambda _: None) for n in names)
        )
        verdict = verdicts[0]
        assert all(v.accepted for v in verdicts), verdicts
        (bots / ARMED).touch()
        admin = apb_grpc.AdminServiceStub(channel)  # type: ignore[no-untyped-call]
        admin_token = admin_token_path(league, out).read_text().strip()
        request = apb.StartTournamentRequest(
            seed=bytes.fromhex(SEED),
            games=6,
            table_size=2,
            jobs=1,
            name=TOURNAMENT,
            sandbox="off",
        )
        call = admin.StartTournament(request, metadata=[("authorization", f"Bearer {admin_token}")])
        async for event in call:
            if event.WhichOneof("kind") == "error":
                raise AssertionError(f"the tournament failed: {event}")
        games = list(server.store.games_of(TOURNAMENT).values())
    finally:
        await channel.close(None)
        await server.stop()
    return Played(league, out, tokens, games, verdict)


@dataclasses.dataclass
class Site:
    server: LeagueServer
    web: WebServer

    @property
    def url(self) -> str:
        return self.web.url.rstrip("/")


@contextlib.asynccontextmanager
async def serving(played: Played, logins: LoginLimits | None = None) -> AsyncIterator[Site]:
    spectator = Spectator()
    pages = AuthorPages(spectator, logins)
    web = WebServer(spectator, "127.0.0.1:0", pages=(pages,))
    await web.start()
    server = LeagueServer(config(played.league, played.out), watcher=spectator, tables=spectator)
    pages.attach(League(server.store, server.versions, played.out, server.ladder))
    await server.start()
    try:
        yield Site(server, web)
    finally:
        await server.stop()
        await web.stop()


def csrf_of(page: str) -> str:
    found = re.search(r"name=csrf value='([^']+)'", page)
    assert found is not None, page
    return found.group(1)


def run(body: object) -> None:
    asyncio.run(asyncio.wait_for(body, 120))  # type: ignore[arg-type]


def client() -> aiohttp.ClientSession:
    """A browser-like HTTP client: it keeps the session cookie of 127.0.0.1."""
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
