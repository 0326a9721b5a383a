"""A page for every fault, from real bots that commit them, on a real league server.

The league is played once for the module (`author_harness.play_league`):
submitted bots, each committing one fault on its third turn of the night
once its version is accepted: `sleepy` answers after its move time (timeout), `cheat` bids what the
rules refuse (illegal action), `crashy` says so on stderr and dies (crash), `quitter`
leaves with exit status 0 (a disconnect), `garbler` sends an action that is no action
(a malformed message), and `staller`, speaking HTTP/2 by hand, answers its first turn and
then stops reading its stream, so that the referee's next request cannot be written (a
stall). `steady` commits no fault.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import aiohttp
import pytest
from author_harness import STALL, Played, client, play_league, run, serving, turn_mark

from arena.protocol.faults import FaultKind
from arena.web.portal.fault_html import STDERR_LINES

pytestmark = pytest.mark.slow

BOTS = {
    "sleepy": "timeout",
    "cheat": "illegal_action",
    "crashy": "crash",
    "quitter": "disconnect",
    "garbler": "malformed_message",
    "staller": STALL,
}
STEADY = "steady"
"""An entrant that commits no fault: someone still playing once the others have faulted."""


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    tmp = tmp_path_factory.mktemp("faults")
    result: list[Played] = []

    async def body() -> None:
        result.append(await play_league(tmp, {**BOTS, STEADY: None}))

    run(body())
    return result[0]


async def log_in(http: aiohttp.ClientSession, url: str, name: str, token: str) -> str:
    async with http.post(f"{url}/author/login", data={"name": name, "token": token}) as reply:
        assert reply.status == 200 and str(reply.url).endswith("/author")
        return await reply.text()


async def fault_link(http: aiohttp.ClientSession, url: str, kind: str) -> str:
    """The first link of the author's page to a fault of this kind, found by the filter."""
    async with http.get(f"{url}/author?fault={kind}") as reply:
        page = await reply.text()
    word = kind.replace("_", " ")
    found = re.search(r"<a class=fault href='(/author/fault/[^']+)'>" + word, page)
    assert found is not None, page
    return html.unescape(found.group(1))


def test_every_kind_of_fault_has_a_bot_that_commits_it() -> None:
    assert sorted(BOTS.values()) == sorted(kind.value for kind in FaultKind)


@pytest.mark.parametrize("name", list(BOTS))
def test_each_fault_has_a_page_that_explains_it(played: Played, name: str) -> None:
    kind = BOTS[name]
    line = next(g for g in played.games if any(f.bot == name for f in g.faults))
    assert next(f for f in line.faults if f.bot == name).fault.kind.value == kind

    async def body() -> None:
        async with serving(played) as site, client() as http:
            await log_in(http, site.url, name, played.tokens[name])
            href = await fault_link(http, site.url, kind)
            async with http.get(site.url + href) as reply:
                assert reply.status == 200
                page = await reply.text()
            # The position: its round and its dice, and the round's decisions before it.
            assert re.search(r"<dd id=round>\d+</dd>", page), page
            assert re.search(r"<dd class=hand id=dice>[1-6]( [1-6])*</dd>", page), page
            assert "id=bids" in page
            # Its reply, or its silence; where the time went.
            if kind == "illegal_action":
                assert "<pre id=reply>" in page
            else:
                assert "<p id=reply>Nothing: silence.</p>" in page
            wall = re.search(r"<dd id=wall>(\d+) ms</dd>", page)
            if kind == "timeout":
                assert wall is not None and int(wall.group(1)) >= 2000, page
            for ident in ("held", "credit", "cpu"):
                assert f"<dd id={ident}>" in page
            # Its own log lines of the game, and the tail of its log.
            game_log = re.search(r"<pre id=game-log>(.*?)</pre>", page, re.S)
            assert game_log is not None and html.escape(turn_mark(name)) in game_log.group(1)
            tail = re.search(r"<pre id=stderr-tail>(.*?)</pre>", page, re.S)
            assert tail is not None and len(tail.group(1).split("\n")) <= STDERR_LINES
            if kind == "crash":
                assert "crashing now" in tail.group(1)
            for other in BOTS:
                assert other == name or f"{other} says" not in page
            # The replay, opened at the fault's step.
            found = re.search(r"<a id=replay href='([^']+)#step=(\d+)'>", page)
            assert found is not None, page
            replay = json.loads((played.out / line_folder(played, href)).read_text())
            step = int(found.group(2))
            assert "fault" in replay["events"][step - 2]
            assert replay["events"][step - 2]["seat"] == replay["players"].index(name)
            # The replay, served, links back to the fault's page.
            async with http.get(site.url + found.group(1)) as reply:
                assert f"<a class=fault href='{href}'>{name}: " in await reply.text()

    run(body())


def line_folder(played: Played, href: str) -> Path:
    """The replay file of the game a fault page's address names."""
    _, _, _, tournament, game, _ = href.split("/")
    return Path(tournament) / "replays" / f"{game}.json"


def test_a_fault_page_is_its_authors_alone(played: Played) -> None:
    async def body() -> None:
        async with serving(played) as site, client() as http:
            await log_in(http, site.url, "sleepy", played.tokens["sleepy"])
            href = await fault_link(http, site.url, "timeout")
            async with client() as stranger:
                async with stranger.get(site.url + href, allow_redirects=False) as reply:
                    assert reply.status == 303  # to the login
                await log_in(stranger, site.url, "cheat", played.tokens["cheat"])
                async with stranger.get(site.url + href) as reply:
                    assert reply.status == 404
                    assert "sleepy says" not in await reply.text()
            for wrong in (href.rsplit("/", 1)[0] + "/9", href.rsplit("/", 1)[0] + "/x"):
                async with http.get(site.url + wrong) as reply:
                    assert reply.status == 404, wrong

    run(body())
