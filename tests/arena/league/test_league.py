"""The league server, in process: remote bots as real processes, the admin service over gRPC.

Each test starts a real `LeagueServer` on loopback ports chosen by the system,
registers entrants in its league store, launches kit bots as separate
processes that dial it with their tokens, and drives tournaments through the
admin service's own gRPC client.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import grpc
import pytest
from league_harness import (
    SAMPLE_BOTS,
    SEED,
    Tournament,
    assert_refused,
    eventually,
    gamma_killed_mid_game,
    league,
    run,
)

from arena.league.league_server import LeagueConfig, LeagueServer, admin_token_path
from arena.protocol.messages import admin as apb
from arena.protocol.messages import referee as pb
from arena.protocol.wire import ruleset_to_proto
from arena.referee.service.auth import new_token, token_hash
from arena.referee.service.referee_server import Tls
from arena.store import SqliteStore
from arena.store.lock import LOCK_FILE
from arena.tournament.play.observer import Progress
from arena.tournament.schedule.round_robin import build
from engine import Ruleset, preset

# 1. Remote bots play a tournament started through the admin service.


def test_remote_bots_play_a_tournament_started_through_the_admin_service(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            scripts = {
                "alpha": "binomial_bot.py",
                "beta": "random_bot.py",
                "gamma": "strong_bot.py",
            }
            for name, script in scripts.items():
                lg.launch(name, tokens[name], sessions=2, script=SAMPLE_BOTS / script)
            await lg.wait_connected({"alpha": 2, "beta": 2, "gamma": 2})
            status = await lg.status()
            assert [(b.name, b.sessions) for b in status.bots] == [
                ("alpha", 2),
                ("beta", 2),
                ("gamma", 2),
            ]
            assert status.tournament == ""

            night = await lg.play(games=6, jobs=2, move_time=2.0, name="night-1")
            finished = night.finished
            assert finished.status == "finished"
            assert finished.games == finished.total == 6
            assert finished.seed_hex == SEED
            ((folder, entrants, _),) = night.of("started")
            assert (folder, entrants) == (night.folder, ["alpha", "beta", "gamma"])
            games = night.of("game")
            assert [progress.done for _, _, progress in games] == [1, 2, 3, 4, 5, 6]
            assert sorted(line.game for line, _, _ in games) == sorted(night.schedule_ids())

            lines = night.lines()
            ids = [line["game"] for line in lines]
            assert sorted(ids) == sorted(night.schedule_ids())
            assert len(set(ids)) == len(ids) == 6
            assert all(line["faults"] == [] for line in lines), lines
            info = night.info()
            assert info["status"] == "finished"
            assert info["dropped"] == []
            assert info["bots"] == {n: {"remote": True} for n in scripts}
            assert night.folder.parent == tmp_path / "results"

            store = SqliteStore(tmp_path / "league" / "league.sqlite")
            try:
                assert {line.game for _, line in store.lines(["night-1"])} == set(ids)
                assert store.tournaments() == [("night-1", 6)]
                assert len(store.lines()) == 6
            finally:
                store.close()
            # The tournament is over; the remote bots stay in the lobby for the next one.
            assert await lg.connected() == {"alpha": 2, "beta": 2, "gamma": 2}
            assert (await lg.status()).tournament == ""

    run(body)


# 2. Refusals, each with its status and reason.


def test_hellos_are_refused_with_the_right_status_and_reason(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, sessions_per_bot=2) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            assert lg.server.store.revoke_entrant("gamma")
            first = lg.launch("alpha", tokens["alpha"], sessions=2)
            await lg.wait_connected({"alpha": 2})
            env = {"PERUDO_TEST_CONNECT_TIMEOUT": "10"}
            wrong = lg.launch("alpha", "not-the-token", **env)
            revoked = lg.launch("gamma", tokens["gamma"], **env)
            borrowed = lg.launch("beta", tokens["alpha"], **env)
            third = lg.launch("alpha", tokens["alpha"], **env)
            for bot in (wrong, revoked, borrowed, third):
                await bot.exited(15)
            assert_refused(wrong, "UNAUTHENTICATED", "wrong token for bot 'alpha'")
            assert_refused(revoked, "PERMISSION_DENIED", "no bot named 'gamma' is registered here")
            assert_refused(borrowed, "UNAUTHENTICATED", "wrong token for bot 'beta'")
            assert_refused(
                third, "RESOURCE_EXHAUSTED", "bot 'alpha' already has 2 sessions open, the limit"
            )
            # None of them disturbed the bot that is rightfully connected.
            assert first.process.poll() is None
            assert await lg.connected() == {"alpha": 2}

    run(body)


def test_the_admin_service_wants_the_admin_token(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            path = admin_token_path(tmp_path / "league" / "league.sqlite")
            assert path.stat().st_mode & 0o777 == 0o600
            wrong = [("authorization", "Bearer " + new_token())]
            bare = [("authorization", path.read_text().strip())]  # no "Bearer"
            for metadata in (None, wrong, bare):
                calls: list[Callable[[], Awaitable[Any]]] = [
                    lambda md=metadata: lg.admin.GetStatus(
                        apb.GetStatusRequest(), metadata=md, timeout=5
                    ),
                    lambda md=metadata: lg.admin.StopTournament(
                        apb.StopTournamentRequest(), metadata=md, timeout=5
                    ),
                    lambda md=metadata: lg.admin.StartTournament(
                        apb.StartTournamentRequest(games=2), metadata=md, timeout=5
                    ).read(),
                ]
                for call in calls:
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await call()
                    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
                    assert refused.value.details() == "wrong or missing admin token"
            # Nothing was started by the refused calls; the right token is let in.
            assert (await lg.status()).tournament == ""
            reply = await lg.admin.StopTournament(
                apb.StopTournamentRequest(), metadata=lg.metadata, timeout=5
            )
            assert reply.stopping is False
            assert [p.name for p in (tmp_path / "results").iterdir()] == [LOCK_FILE]

    run(body)


def _wired(**fields: int) -> pb.Ruleset:
    """The rulebook on the wire, with `fields` set to what no ruleset has."""
    message = ruleset_to_proto(Ruleset())
    for name, value in fields.items():
        setattr(message, name, value)
    return message


def test_bad_start_requests_are_refused_and_leave_nothing_behind(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            refusals = [
                ({"name": "night"}, "fewer than two bots can play (none connected); nothing to do"),
                # Refused again for the same reason, not for a folder left by the first try.
                ({"name": "night"}, "fewer than two bots can play (none connected); nothing to do"),
                ({"seed": bytes(8)}, "--seed: the seed needs at least 16 bytes (32 hex digits)"),
                ({"deals": "sometimes"}, "--deals: 'sometimes' is not one of own, disjoint"),
                ({"move_time": 0.0}, "--move-time: 0 s is out of range"),
                ({"jobs": 0}, "--jobs: must be at least 1, not 0"),
                ({"ruleset": _wired(calza=9)}, "--rules: a ruleset field has no value numbered 9"),
                ({"ruleset": _wired(dice_per_player=0)}, "--rules: dice_per_player must be"),
                (
                    {"gauntlet": "alpha", "deals": "disjoint"},
                    "--gauntlet seats its bot at every table, so no tables share no bot",
                ),
            ]
            for fields, reason in refusals:
                call = lg.admin.StartTournament(
                    apb.StartTournamentRequest(**fields), metadata=lg.metadata, timeout=5
                )
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await call.read()
                assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION, fields
                assert reason in str(refused.value.details()), fields
            # Nothing but the server's own lock (arena.store.lock): no tournament folder.
            assert [p.name for p in (tmp_path / "results").iterdir()] == [LOCK_FILE]
            assert (await lg.status()).tournament == ""

    run(body)


def test_revoking_a_name_closes_its_sessions_and_a_new_token_lets_it_back(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta")
            alpha = lg.launch("alpha", tokens["alpha"], sessions=2)
            beta = lg.launch("beta", tokens["beta"])
            await lg.wait_connected({"alpha": 2, "beta": 1})
            # Revoked from another connection to the store, as `arena token revoke` does.
            elsewhere = SqliteStore(tmp_path / "league" / "league.sqlite")
            try:
                assert elsewhere.revoke_entrant("alpha")
                revoked_at = time.monotonic()
                assert await alpha.exited(8) == 0
                assert time.monotonic() - revoked_at < 6
                await lg.wait_connected({"beta": 1}, 3)
                assert beta.process.poll() is None
                # Its old token no longer lets it in (see the refusals above); a new one does.
                fresh = new_token()
                elsewhere.set_entrant("alpha", token_hash(fresh))
            finally:
                elsewhere.close()
            lg.launch("alpha", fresh)
            await lg.wait_connected({"alpha": 1, "beta": 1})

    run(body)


def test_a_new_token_for_a_name_closes_the_sessions_opened_with_the_old_one(
    tmp_path: Path,
) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta")
            alpha = lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            await lg.wait_connected({"alpha": 1, "beta": 1})
            rotated_at = time.monotonic()
            lg.register("alpha")  # `arena token add` again: a new token replaces the old
            assert await alpha.exited(8) == 0
            assert time.monotonic() - rotated_at < 6
            await lg.wait_connected({"beta": 1}, 3)
            assert "alpha" not in lg.server.lobby.connected()

    run(body)


def test_a_server_that_cannot_listen_says_where_and_leaves_the_running_one_alone(
    tmp_path: Path,
) -> None:
    league_path = tmp_path / "league" / "league.sqlite"

    async def body() -> None:
        async with league(tmp_path) as lg:
            token_file = admin_token_path(league_path)
            before = token_file.read_text()
            with socket.socket() as busy:
                busy.bind(("127.0.0.1", 0))
                busy.listen()
                taken_bots = f"127.0.0.1:{busy.getsockname()[1]}"
                taken_admin = f"127.0.0.1:{lg.server.admin_port}"  # a league server's own
                for listen, admin, taken in (
                    (taken_bots, "127.0.0.1:0", taken_bots),
                    ("127.0.0.1:0", taken_admin, taken_admin),
                ):
                    # Another league: the same one is refused before it listens (its lock).
                    other = tmp_path / "other"
                    config = LeagueConfig(
                        listen=listen, admin_listen=admin, league=other / "l.sqlite", out=other
                    )
                    second = LeagueServer(config)
                    with pytest.raises(OSError, match=re.escape(f"could not listen on {taken}")):
                        await second.start()
                    await second.stop()
            # The running server kept its address and its token file.
            assert token_file.read_text() == before
            assert (await lg.status()).bots == []

    run(body)


# 3. Disconnections: faults in flight, deferral between games, the reconnect grace.


def test_a_bot_killed_mid_game_is_faulted_and_the_tournament_finishes(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, reconnect_grace=1.0) as lg:
            follow = await gamma_killed_mid_game(lg, tmp_path)
            night = await follow

            assert night.finished.status == "finished"
            info = night.info()
            players = night.players()
            lines = night.lines()
            done = [line["game"] for line in lines]
            assert sorted(done + info["dropped"]) == sorted(night.schedule_ids())
            assert len(set(done)) == len(done)
            gamma_lines = [line for line in lines if "gamma" in line["players"]]
            assert gamma_lines, "gamma was playing when it was killed"
            for line in gamma_lines:
                kinds = {f["kind"] for f in line["faults"] if f["bot"] == "gamma"}
                assert kinds and kinds <= {"disconnect", "crash"}, line
                assert line["ranking"][-1] == "gamma"
            # Games without gamma were all played, cleanly; the rest of gamma's were dropped.
            assert {g for g, p in players.items() if "gamma" not in p} <= set(done)
            assert all(line["faults"] == [] for line in lines if line not in gamma_lines)
            assert info["dropped"], "gamma did not come back, so its later games are dropped"
            assert all("gamma" in players[g] for g in info["dropped"])
            assert any("gamma did not come back" in note for note in night.of("note"))

    run(body)


def test_a_bot_gone_between_games_has_its_games_dropped_after_the_grace(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, reconnect_grace=1.0) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            leaver = lg.launch("gamma", tokens["gamma"], PERUDO_TEST_QUIT_AFTER="1")
            await lg.wait_connected({"alpha": 1, "beta": 1, "gamma": 1})
            night = await lg.play(games=6, table_size=2, jobs=1, move_time=2.0, name="left")
            assert await leaver.exited(5) == 0
            assert "leaving after 1 games" in leaver.output()

            assert night.finished.status == "finished"
            info = night.info()
            players = night.players()
            lines = night.lines()
            done = [line["game"] for line in lines]
            assert sorted(done + info["dropped"]) == sorted(night.schedule_ids())
            assert len(set(done)) == len(done)
            assert {g for g, p in players.items() if "gamma" not in p} <= set(done)
            assert info["dropped"] and all("gamma" in players[g] for g in info["dropped"])
            gamma_lines = [line for line in lines if "gamma" in line["players"]]
            # Its one full game is there; a game that began as it was leaving may show it
            # faulted, but none was played with gamma missing from the start of the night.
            assert sum(1 for line in gamma_lines if not line["faults"]) == 1
            waiting, note = night.of("note")  # the wait is said as it begins, then its end
            assert waiting.startswith("waiting for gamma (disconnected), 1 s of grace left; ")
            assert note == (
                f"dropping {len(info['dropped'])} games: gamma did not come back within 1 s"
            )
            store = SqliteStore(tmp_path / "league" / "league.sqlite")
            try:
                assert {line.game for _, line in store.lines(["left"])} == set(done)
            finally:
                store.close()

            # Coming back with the same token puts it back in the lobby, ready for the next one.
            lg.launch("gamma", tokens["gamma"])
            await lg.wait_connected({"alpha": 1, "beta": 1, "gamma": 1})

    run(body)


def test_a_bot_back_within_the_grace_plays_its_deferred_games(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path, reconnect_grace=20.0) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            leaver = lg.launch("gamma", tokens["gamma"], PERUDO_TEST_QUIT_AFTER="1")
            await lg.wait_connected({"alpha": 1, "beta": 1, "gamma": 1})
            follow = asyncio.ensure_future(
                lg.play(games=6, table_size=2, jobs=1, move_time=2.0, name="back")
            )
            assert await leaver.exited(15) == 0
            await eventually(
                lambda: "gamma" not in lg.server.lobby.connected(), "gamma is out of the lobby"
            )
            assert not follow.done()
            lg.launch("gamma", tokens["gamma"])
            night = await follow

            assert night.finished.status == "finished"
            info = night.info()
            assert info["dropped"] == []
            done = [line["game"] for line in night.lines()]
            assert sorted(done) == sorted(night.schedule_ids())
            # At most a word that games waited for gamma (if they ran out before it was back).
            assert all(n.startswith("waiting for gamma (disconnected)") for n in night.of("note"))

    run(body)


# 4. TLS.


def _self_signed(folder: Path) -> tuple[Path, Path]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the openssl command is needed to make a self-signed certificate")
    cert, key = folder / "cert.pem", folder / "key.pem"
    made = subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            str(key),
            "-out",
            str(cert),
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=IP:127.0.0.1,DNS:localhost",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if made.returncode != 0:
        pytest.skip(f"openssl could not make a certificate: {made.stderr.strip()[-300:]}")
    return cert, key


def test_with_tls_bots_that_trust_the_certificate_play_and_plaintext_bots_cannot(
    tmp_path: Path,
) -> None:
    cert, key = _self_signed(tmp_path)
    tls = Tls(cert.read_bytes(), key.read_bytes())

    async def body() -> None:
        async with league(tmp_path, tls=tls) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            trusted = {"PERUDO_CA_FILE": str(cert)}
            lg.launch("alpha", tokens["alpha"], sessions=2, **trusted)
            lg.launch("beta", tokens["beta"], script=SAMPLE_BOTS / "binomial_bot.py", **trusted)
            quick = {"PERUDO_TEST_CONNECT_TIMEOUT": "2"}
            plaintext = lg.launch("gamma", tokens["gamma"], **quick)
            untrusted = lg.launch("gamma", tokens["gamma"], PERUDO_TLS="1", **quick)  # no CA
            await lg.wait_connected({"alpha": 2, "beta": 1})
            night = await lg.play(games=4, jobs=2, move_time=2.0, name="tls")
            assert night.finished.status == "finished"
            lines = night.lines()
            assert len(lines) == 4
            assert all(line["players"] and not line["faults"] for line in lines)
            assert night.info()["entrants"] == ["alpha", "beta"]

            told = [
                (plaintext, f"the referee at {lg.address} speaks TLS; this bot dialled in"),
                (untrusted, "the referee's certificate is not trusted"),
            ]
            for bot, said in told:
                assert await bot.exited(15) == 1
                assert said in bot.output()
            assert await lg.connected() == {"alpha": 2, "beta": 1}

    run(body)


# 5. The admin service: one tournament at a time, stopping, and the server between tournaments.


def assert_league_holds(path: Path, tournaments: dict[str, Tournament]) -> None:
    """The league store has these tournaments, in order, each with the games of its folder."""
    store = SqliteStore(path)
    try:
        counts = [(name, len(t.lines())) for name, t in tournaments.items()]
        assert store.tournaments() == counts
        for name, tournament in tournaments.items():
            assert {line.game for _, line in store.lines([name])} == {
                line["game"] for line in tournament.lines()
            }
        assert len(store.lines()) == sum(count for _, count in counts)
    finally:
        store.close()


def test_one_tournament_at_a_time_stop_interrupts_and_the_server_runs_on(tmp_path: Path) -> None:
    async def body() -> None:
        async with league(tmp_path) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            slow = {"PERUDO_TEST_DELAY": "0.005"}
            for name in tokens:
                lg.launch(name, tokens[name], sessions=2, **slow)
            await lg.wait_connected({"alpha": 2, "beta": 2, "gamma": 2})

            during: dict[str, Any] = {}

            async def meddle(progress: Progress) -> None:
                if during:
                    return
                second = lg.start(games=2, name="too-soon")
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await second.read()
                during["refused"] = refused.value
                during["status"] = await lg.status()
                reply = await lg.admin.StopTournament(
                    apb.StopTournamentRequest(), metadata=lg.metadata, timeout=5
                )
                during["stopping"] = reply.stopping
                progress = lg.server.observer.progress
                assert progress is not None
                during["done"] = progress.done  # no game begins after this, some may end

            first = await Tournament.follow(
                lg.start(games=60, jobs=2, move_time=2.0, name="first"), meddle
            )
            refused = during["refused"]
            assert refused.code() == grpc.StatusCode.FAILED_PRECONDITION
            assert refused.details() == "a tournament is already running; stop it first"
            assert not (tmp_path / "results" / "too-soon").exists()
            assert during["status"].tournament == "first"
            assert during["status"].games_total == 60
            assert during["stopping"] is True

            finished = first.finished
            assert finished.status == "interrupted"
            assert finished.seed_hex is None
            lines = first.lines()
            # The games in flight when it stopped were finished (at most one per job),
            # and nothing more began.
            assert during["done"] <= len(lines) <= during["done"] + 2
            assert finished.games == len(lines) < 60
            assert all(not line["faults"] for line in lines)
            info = first.info()
            assert info["status"] == "interrupted"
            assert info["seed"] is None
            assert (await lg.status()).tournament == ""
            reply = await lg.admin.StopTournament(
                apb.StopTournamentRequest(), metadata=lg.metadata, timeout=5
            )
            assert reply.stopping is False

            # The same server, the same bots, another tournament.
            second = await lg.play(
                games=2,
                jobs=2,
                move_time=2.0,
                name="second",
                only=["alpha", "gamma"],
                ruleset=ruleset_to_proto(replace(preset("no-calza"), dice_per_player=3)),
            )
            assert second.finished.status == "finished"
            assert {tuple(sorted(x["players"])) for x in second.lines()} == {("alpha", "gamma")}
            assert len(second.lines()) == 2
            ruleset = second.info()["ruleset"]
            assert (ruleset["calza"], ruleset["dice_per_player"]) == ("off", 3)
            assert_league_holds(
                tmp_path / "league" / "league.sqlite", {"first": first, "second": second}
            )
            assert await lg.connected() == {"alpha": 2, "beta": 2, "gamma": 2}

    run(body)


def test_stop_while_waiting_for_an_absent_bot_interrupts_at_once(tmp_path: Path) -> None:
    """A stop during the reconnect grace interrupts the night; it does not drop the games."""

    async def body() -> None:
        async with league(tmp_path, reconnect_grace=30.0) as lg:
            tokens = lg.register("alpha", "beta", "gamma")
            lg.launch("alpha", tokens["alpha"])
            lg.launch("beta", tokens["beta"])
            leaver = lg.launch("gamma", tokens["gamma"], PERUDO_TEST_QUIT_AFTER="1")
            await lg.wait_connected({"alpha": 1, "beta": 1, "gamma": 1})
            follow = asyncio.ensure_future(
                lg.play(games=6, table_size=2, jobs=2, move_time=2.0, name="waiting")
            )
            assert await leaver.exited(15) == 0
            folder = tmp_path / "results" / "waiting"

            def without_gamma_played() -> bool:
                text = (folder / "games.jsonl").read_text()
                done = {json.loads(line)["game"] for line in text.splitlines()}
                schedule = build(["alpha", "beta", "gamma"], 2, 6, bytes.fromhex(SEED))
                return {g.game_id for g in schedule if "gamma" not in g.players} <= done

            await eventually(without_gamma_played, "the games without gamma are played", 15)
            await eventually(
                lambda: "gamma" not in lg.server.lobby.connected(), "gamma is out of the lobby"
            )
            await asyncio.sleep(0.3)  # every worker is now waiting for gamma
            asked = time.monotonic()
            reply = await lg.admin.StopTournament(
                apb.StopTournamentRequest(), metadata=lg.metadata, timeout=5
            )
            assert reply.stopping is True
            night = await follow
            assert time.monotonic() - asked < 5, "the stop waited out the reconnect grace"
            assert night.finished.status == "interrupted"
            info = night.info()
            assert info["dropped"] == []
            assert info["status"] == "interrupted"
            assert len(night.lines()) < 6

    run(body)
