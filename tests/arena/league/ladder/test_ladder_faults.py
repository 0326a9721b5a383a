"""The ladder rides out its faults on a real league server: a league store that cannot be
reached as it chooses a table, a full disk, a round folder a kill left half made or a hand
damaged, a submitted version that cannot start. Each is said once with its cause and its way
out, the others play on, and a fault that stops the ladder says so everywhere."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

import pytest
from league_harness import SAMPLE_BOTS, League, eventually, league
from postgres_harness import PostgresServer

from arena.league.ladder.rounds import is_ladder
from arena.league.ladder.sideline import SIT_OUT_MAX_S, SIT_OUT_S, Sideline
from arena.league.screen import ScreenEvent
from arena.protocol.messages import admin as apb
from arena.referee.service.auth import new_token, token_hash
from arena.store import StoreError
from arena.store.causes import Cause
from arena.tournament.results.folder import TournamentFolder

SCRIPTS = {"alpha": "binomial_bot.py", "beta": "random_bot.py", "gamma": "strong_bot.py"}
LIMIT_S = 150.0


def run(body: Callable[[], Coroutine[Any, Any, None]]) -> None:
    async def bounded() -> None:
        await asyncio.wait_for(body(), LIMIT_S)

    asyncio.run(bounded())


class Screen:
    """The server's screen (and so its log): every line it was told."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def __call__(self, event: ScreenEvent) -> None:
        self.lines.append(event.text)

    def ladder(self) -> list[str]:
        return [line for line in self.lines if line.startswith("ladder: ")]

    def saying(self, words: str) -> list[str]:
        return [line for line in self.ladder() if words in line]


async def connect(lg: League) -> None:
    tokens = lg.register(*SCRIPTS)
    for name, script in SCRIPTS.items():
        lg.launch(name, tokens[name], sessions=3, script=SAMPLE_BOTS / script)
    await lg.wait_connected(dict.fromkeys(SCRIPTS, 3))


async def ladder(lg: League, action: int) -> apb.LadderResponse:
    request = apb.LadderRequest(action=action)  # type: ignore[arg-type]
    return await lg.admin.Ladder(request, metadata=lg.metadata, timeout=60)  # type: ignore[no-any-return]


def rounds_played(lg: League) -> list[str]:
    """The ladder's rounds with games in the league store."""
    return [tid for tid, games in lg.server.store.tournaments() if is_ladder(tid) and games]


def gauges(lg: League) -> dict[str, float]:
    """The ladder's lines of /metrics, by series."""
    found = {}
    for line in lg.server.metrics.exposition().decode().splitlines():
        if line.startswith("perudo_arena_ladder_"):
            series, value = line.rsplit(" ", 1)
            found[series] = float(value)
    return found


def no_line_repeated(screen: Screen) -> None:
    counts = Counter(screen.ladder())
    assert all(n == 1 for n in counts.values()), counts.most_common(3)


def test_a_fault_is_said_when_it_begins_counted_while_it_lasts_and_said_when_it_ends() -> None:
    from arena.league.ladder.faults import REMIND_S, Fault, Troubles

    said: list[str] = []
    now = [0.0]
    troubles = Troubles(said.append, lambda: now[0])
    disk = Fault("disk", "the disk holding /r is full")
    for _ in range(5):
        troubles.happened(disk)
        now[0] += 1.0
    assert said == ["the disk holding /r is full"]
    assert troubles.said() == "the disk holding /r is full (5 tries failed in 5 s)"
    now[0] += REMIND_S
    troubles.happened(disk)
    assert said[-1].startswith("still: the disk holding /r is full (6 tries")
    troubles.cleared(frozenset({"store"}))  # another kind's end: this one holds
    assert troubles.fault == disk
    troubles.cleared()
    assert said[-1].startswith("going on again, past: the disk holding /r is full")
    assert troubles.said() is None


@pytest.fixture
def quick_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ladder looks again ten times a second, not once: a fault's few tries (the ones
    that must not be said again) come in tenths of a second."""
    from arena.league.ladder import play as ladder_module

    monkeypatch.setattr(ladder_module, "IDLE_S", 0.1)


@pytest.mark.usefixtures("quick_tries")
def test_a_store_outage_as_a_table_is_chosen_is_waited_out_and_the_ladder_goes_on(
    tmp_path: Path,
) -> None:
    """Issue 36, finding 2: the StoreError escaped the choice and the ladder ended silently."""
    screen = Screen()
    down = asyncio.Event()
    failed = 0

    async def body() -> None:
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            real = lg.server.store.playing_versions

            def failing(names: Any = None) -> Any:
                nonlocal failed
                if down.is_set():
                    failed += 1
                    raise StoreError("the league store cannot be reached", Cause.UNREACHABLE)
                return real(names)

            lg.server.store.playing_versions = failing  # type: ignore[method-assign]
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: rounds_played(lg), "a round recorded", 60)
            down.set()
            await eventually(lambda: screen.saying("cannot be reached"), "the outage said", 60)
            await eventually(lambda: failed >= 3, "an outage of a few choices", 60)
            status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)
            assert status.running and "cannot be reached" in status.error
            assert gauges(lg)['perudo_arena_ladder_trouble{kind="store"}'] == 1.0
            down.clear()
            played = len(rounds_played(lg))
            await eventually(lambda: len(rounds_played(lg)) > played, "a round after it", 90)
            status = await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert status.error == ""
        [waiting] = screen.saying("cannot be reached")[:1]
        assert "Waiting up to 60 s" in waiting
        assert len(screen.saying("going on again")) == 1
        no_line_repeated(screen)

    run(body)


def test_a_store_gone_past_its_patience_stops_the_ladder_saying_so_everywhere(
    tmp_path: Path,
) -> None:
    screen = Screen()

    async def body() -> None:
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            lg.server.ladder.store_wait.patience = 1.0
            real = lg.server.store.playing_versions
            gone = True

            def failing(names: Any = None) -> Any:
                if gone:
                    raise StoreError("the league store cannot be reached", Cause.UNREACHABLE)
                return real(names)

            lg.server.store.playing_versions = failing  # type: ignore[method-assign]
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: not lg.server.ladder.active, "the ladder stops", 30)
            status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)
            assert not status.running
            assert status.error.startswith("stopped: the league store failed for ")
            assert "arena admin ladder start" in status.error
            assert gauges(lg) == {
                "perudo_arena_ladder_running": 0.0,
                **{f'perudo_arena_ladder_trouble{{kind="{k}"}}': 0.0 for k in ("disk", "round")},
                'perudo_arena_ladder_trouble{kind="other"}': 0.0,
                'perudo_arena_ladder_trouble{kind="store"}': 1.0,
            }
            [stopped] = screen.saying("stopped:")
            assert "cannot be reached" in stopped and "arena admin ladder start" in stopped
            gone = False
            started = await ladder(lg, apb.LadderRequest.ACTION_START)
            assert started.running and started.error == ""
            await eventually(lambda: rounds_played(lg), "a round recorded", 60)
            assert gauges(lg)["perudo_arena_ladder_running"] == 1.0
            await ladder(lg, apb.LadderRequest.ACTION_STOP)

    run(body)


@pytest.mark.slow
def test_a_postgres_restart_during_the_ladder_is_waited_out(
    tmp_path: Path, postgres_server: PostgresServer, postgres_url: str
) -> None:
    """Issue 36, finding 2, as it was found: PostgreSQL stopped and started again."""
    screen = Screen()

    async def body() -> None:
        async with league(tmp_path, say=screen, store=postgres_url) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: rounds_played(lg), "a round recorded", 60)
            await asyncio.to_thread(postgres_server.stop)
            try:
                waiting = lambda: screen.saying("Waiting up to")  # noqa: E731
                await eventually(waiting, "the ladder waits for the store", 60)
                status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)  # no traceback
                assert status.running and status.error
            finally:
                await asyncio.to_thread(postgres_server.start)
            played = len(rounds_played(lg))
            await eventually(lambda: len(rounds_played(lg)) > played, "a round after", 90)
            status = await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert not screen.saying("stopped:")
        no_line_repeated(screen)

    run(body)


@pytest.mark.usefixtures("quick_tries")
def test_a_full_disk_is_said_once_with_its_path_and_the_room_a_round_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36, finding 7: `ladder: [Errno 28] No space left on device`, once a second."""
    from arena.league.ladder import play as ladder_module

    screen = Screen()
    full = True
    failed = 0
    play = ladder_module.Tournament.run
    where = str(tmp_path / "results" / "ladder-000000" / "games.jsonl")

    async def filling(self: Any, *args: Any, **kwargs: Any) -> Any:
        nonlocal failed
        if full:
            failed += 1
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), where)
        return await play(self, *args, **kwargs)

    monkeypatch.setattr(ladder_module.Tournament, "run", filling)

    async def body() -> None:
        nonlocal full
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: screen.saying("is full"), "the full disk said", 60)
            await eventually(lambda: failed >= 3, "a few tries", 60)
            status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)
            assert status.running and "tries failed" in status.error
            assert gauges(lg)['perudo_arena_ladder_trouble{kind="disk"}'] == 1.0
            full = False
            await eventually(lambda: rounds_played(lg), "a round once there is room", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
        [said] = screen.saying("is full")[:1]
        assert said.startswith(f"ladder: the disk holding {where} is full: ")
        assert "MiB free there, a round needs 64 MiB" in said and "goes on by itself" in said
        assert not screen.saying("[Errno 28]")
        no_line_repeated(screen)

    run(body)


def _fill(disk: Path) -> Path:
    """Fill `disk` to its last byte: the ballast file."""
    ballast = disk / "ballast"
    fd = os.open(ballast, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        with contextlib.suppress(OSError):
            while os.write(fd, b"\0" * 4096):
                pass
    finally:
        os.close(fd)
    return ballast


@pytest.mark.slow
def test_a_real_full_disk_under_the_rounds_is_said_once_and_play_resumes_once_freed(
    tmp_path: Path, tmpfs: Callable[[str], Path]
) -> None:
    """Issue 36, finding 7, on a real full disk: the results folder on a tmpfs filled up."""
    screen = Screen()
    disk = tmpfs("2m")
    (tmp_path / "results").symlink_to(disk)

    async def body() -> None:
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            ballast = _fill(disk)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: screen.saying("is full"), "the full disk said", 60)
            await asyncio.sleep(3.0)  # a few tries
            ballast.unlink()
            await eventually(lambda: rounds_played(lg), "a round once there is room", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
        [said] = screen.saying("is full")[:1]
        assert str(tmp_path / "results") in said and "a round needs 64 MiB" in said, said
        assert not screen.saying("[Errno 28]")
        assert not screen.saying("set aside")  # the round it could not lay out: laid out anew
        assert len(screen.saying("going on again")) == 1
        no_line_repeated(screen)

    run(body)


def _damage(results: Path, recorded: list[str]) -> tuple[str, str, str]:
    """A finished round whose tournament.json is damaged, the last round's folder gone, and a
    new one a kill left without its tournament.json: their names."""
    first, last = sorted(recorded)[0], sorted(recorded)[-1]
    (results / first / "tournament.json").write_text('{"id": "ladder-0000')
    for path in sorted((results / last).rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    (results / last).rmdir()
    killed = f"ladder-{int(last.removeprefix('ladder-')) + 1:06d}"
    (results / killed).mkdir()
    return first, last, killed


def test_damaged_and_half_made_rounds_are_set_aside_once_and_the_ladder_plays_on(
    tmp_path: Path,
) -> None:
    """Issue 36, findings 4 and 5: a folder without tournament.json (a kill as it was laid
    out), a damaged one, the last round's folder missing: each held the ladder for good."""
    screen = Screen()
    before: list[str] = []

    async def first() -> None:
        async with league(tmp_path) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: len(rounds_played(lg)) >= 2, "two rounds recorded", 60)
            await ladder(lg, apb.LadderRequest.ACTION_STOP)
            before.extend(rounds_played(lg))

    async def second() -> None:
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            await ladder(lg, apb.LadderRequest.ACTION_START)
            new = lambda: set(rounds_played(lg)) - set(before)  # noqa: E731
            await eventually(lambda: len(new()) >= 2, "two new rounds recorded", 90)
            status = await ladder(lg, apb.LadderRequest.ACTION_STOP)
            assert status.error == ""
            # The half-made round laid out anew under its number, the next ones after it:
            # never the number of the round whose folder went, which the store holds.
            assert min(new()) == killed and min(new()) > last

    run(first)
    results = tmp_path / "results"
    damaged, last, killed = _damage(results, before)
    run(second)
    assert (results / f"{damaged}.set-aside" / "tournament.json").is_file()
    assert not (results / damaged).exists()
    [aside] = screen.saying("set aside")
    assert aside.startswith(f"ladder: {damaged} set aside as {damaged}.set-aside: its ")
    assert "remove it or put it back by hand" in aside
    no_line_repeated(screen)


def _version(lg: League, name: str, manifest: str | None) -> None:
    """An accepted version of `name` in the store, as intake leaves one: its files hold
    `manifest` as bot.toml (None: its files are missing)."""
    store, files = lg.server.store, lg.server.versions.files
    store.set_entrant(name, token_hash(new_token()))
    sha = hashlib.sha256(name.encode()).hexdigest()
    store.begin_submission(f"uid-{name}", name, sha, 100, 1, time.time())
    assert store.finish_submission(f"uid-{name}", True, "", "", "") is not None
    if manifest is not None:
        files.source(sha).mkdir(parents=True)
        files.bot(sha).mkdir()
        (files.bot(sha) / "bot.toml").write_text(manifest)
        (files.bot(sha) / "bot.py").write_text("print('never run')\n")


def test_a_version_that_cannot_start_sits_out_naming_why_and_the_others_play(
    tmp_path: Path,
) -> None:
    """Issue 35, finding 2 (two seats resolving to one name: `--table-size 3 does not fit 2
    entrants`, the table retried every second) and issue 36, finding 5 (one version's files
    missing stopped the ladder)."""
    screen = Screen()

    async def body() -> None:
        async with league(tmp_path, say=screen) as lg:
            await connect(lg)
            _version(lg, "mallory", None)
            _version(lg, "zoe", 'name = "alpha"\nrun = "python bot.py"\n')
            clock = [1000.0]
            sideline = lg.server.ladder.sideline = Sideline(lambda: clock[0])
            both = {"mallory", "zoe"}
            await ladder(lg, apb.LadderRequest.ACTION_START)
            for strike in range(3):  # each back once its time is up, and out again at once
                out = lambda: {s.name for s in sideline.now()} == both  # noqa: E731
                await eventually(out, f"both sit out (strike {strike + 1})", 60)
                clock[0] += SIT_OUT_MAX_S
            await eventually(lambda: len(rounds_played(lg)) >= 3, "three rounds recorded", 90)
            await eventually(out, "both sit out", 60)
            status = await ladder(lg, apb.LadderRequest.ACTION_STOP)
            for tid in rounds_played(lg):
                entrants = TournamentFolder(tmp_path / "results" / tid).info().entrants
                assert set(entrants or ()) == set(SCRIPTS), tid
        assert {s.name: s.seconds for s in status.sitting_out} == dict.fromkeys(both, 8 * SIT_OUT_S)
        said = " ".join(screen.saying("sits out"))
        assert "mallory sits out 60 s: version 1 of mallory cannot play, its files are missing" in (
            said
        )
        assert "zoe sits out 60 s: version 1 of zoe cannot play: its bot.toml names 'alpha'" in (
            said
        )
        assert not screen.saying("does not fit")
        assert len(screen.saying("sits out")) == 2  # each named once, not at each strike
        no_line_repeated(screen)

    run(body)


def test_the_gauges_say_a_running_ladder_with_no_fault(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            assert gauges(lg)["perudo_arena_ladder_running"] == 0.0
            await ladder(lg, apb.LadderRequest.ACTION_START)
            running = gauges(lg)
            assert running.pop("perudo_arena_ladder_running") == 1.0
            assert set(running.values()) == {0.0}
            await ladder(lg, apb.LadderRequest.ACTION_STOP)

    run(body)


def test_an_unforeseen_fault_stops_the_ladder_saying_so_everywhere(tmp_path: Path) -> None:
    """What nothing else catches ends the ladder's loop: never silently."""
    screen = Screen()

    async def body() -> None:
        async with league(tmp_path, say=screen) as lg:

            def broken(flying: Any) -> None:
                raise RuntimeError("an unforeseen fault")

            lg.server.ladder._fill = broken  # type: ignore[method-assign]
            await ladder(lg, apb.LadderRequest.ACTION_START)
            await eventually(lambda: not lg.server.ladder.active, "the ladder stops", 30)
            status = await ladder(lg, apb.LadderRequest.ACTION_STATUS)
            assert not status.running
            assert status.error.startswith("stopped: RuntimeError: an unforeseen fault; ")
            assert gauges(lg)['perudo_arena_ladder_trouble{kind="other"}'] == 1.0
            assert gauges(lg)["perudo_arena_ladder_running"] == 0.0
        [said] = screen.ladder()
        assert said.startswith("ladder: stopped: RuntimeError: an unforeseen fault; `arena admin")

    run(body)
