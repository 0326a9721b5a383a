"""A real `arena serve --log-format json --web` through a tournament with a fault and a refused
stream: every line it writes is a JSON event, every kind of event is there, and its /metrics page,
fetched over HTTP, parses with Prometheus's own parser and counts what the games' records say."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import grpc
import pytest
from cli_harness import arena_command, clean_env, read_lines, wait_for
from prometheus_client.parser import text_string_to_metric_families
from referee_harness import bot_folder, hello

from arena.league.screen import Kind
from arena.protocol.messages import referee as pb

HOSTILE = "evil\x1b[2J\u202ename"
METRICS_AT = "Metrics for Prometheus: "


def _events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()]


def _metrics(url: str) -> dict[str, float]:
    """Every sample of the page, by its name and labels ("name{label=value}")."""
    with urllib.request.urlopen(url + "metrics", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain")
        text = response.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
            samples[f"{sample.name}{{{labels}}}" if labels else sample.name] = sample.value
    return samples


def _refused_hello(port: int) -> None:
    """A Hello under a name no token was made for, as a misconfigured or hostile bot sends."""
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        play = channel.stream_stream(
            "/perudo.v1.RefereeService/Play",
            request_serializer=pb.BotMessage.SerializeToString,
            response_deserializer=pb.RefereeMessage.FromString,
        )
        with pytest.raises(grpc.RpcError):
            list(play(iter([hello(HOSTILE, "no-token")]), timeout=30))


def _refused_submission(tmp_path: Path, league: Path, server: str) -> None:
    """A bot submitted that crashes at once: checked in the sandbox, judged, and told."""
    made = subprocess.run(
        [*arena_command(), "token", "add", "--league", str(league), "zed"],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    token = made.stdout.strip().splitlines()[-1]
    bot = tmp_path / "zed"
    bot.mkdir()
    (bot / "bot.toml").write_text('name = "zed"\nrun = "python bot.py"\n')
    (bot / "bot.py").write_text("raise SystemExit('zed gives up')\n")
    sent = subprocess.run(
        [*arena_command(), "submit", str(bot), "--server", server],
        env={**clean_env(), "PERUDO_TOKEN": token},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert sent.returncode == 1 and "rejected:" in sent.stdout, sent.stdout + sent.stderr


@pytest.mark.slow
def test_serve_logs_every_event_as_json_and_counts_the_games_in_its_metrics(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]]
) -> None:
    league, results, log = tmp_path / "league.sqlite", tmp_path / "results", tmp_path / "log"
    command = [*arena_command(), "serve", "--listen", "127.0.0.1:0", "--admin", "127.0.0.1:0"]
    command += ["--league", str(league), "--out", str(results), "--web", "127.0.0.1:0"]
    command += ["--log-format", "json"]
    with log.open("wb") as out, (tmp_path / "err").open("wb") as err:
        serve = subprocess.Popen(
            command, env=clean_env(), stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
    processes.append(serve)

    def listening() -> dict[str, Any] | None:
        assert serve.poll() is None, log.read_text()
        events = _events(log)
        found = {e["service"]: e for e in events if e["event"] == "listening"}
        said = [e["message"] for e in events if e["message"].startswith(METRICS_AT)]
        if len(found) < 2 or not said:
            return None
        return {**found, "url": said[0].removeprefix(METRICS_AT).removesuffix("metrics")}

    ports = wait_for(listening, "arena serve says where it listens", 90)
    assert isinstance(ports, dict)
    url, admin = ports["url"], ports["admin"]["address"]
    before = _metrics(url)
    assert before["perudo_arena_games_total"] == 0
    _refused_hello(int(ports["bots"]["address"].rpartition(":")[2]))
    bots = tmp_path / "bots"
    bots.mkdir()
    bot_folder(bots, "ann", "kit_bot.py", {})
    bot_folder(bots, "ben", "kit_bot.py", {})
    bot_folder(bots, "cid", "kit_bot.py", {"BOT_MODE": "illegal", "BOT_AT": "1"})
    started = subprocess.run(
        [
            *arena_command(),
            *("admin", "start", "--admin", admin, "--league", str(league), "--bots", str(bots)),
            *("--games", "3", "--name", "night", "--sandbox", "off"),
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert started.returncode == 0, started.stdout + started.stderr
    _refused_submission(tmp_path, league, ports["bots"]["address"])
    lines = read_lines(results / "night")
    after = _metrics(url)
    serve.send_signal(signal.SIGTERM)
    assert serve.wait(timeout=60) == 0, (tmp_path / "err").read_text()

    _check_metrics(before, after, lines)
    assert after["perudo_arena_submissions_total{verdict=rejected}"] == 1
    assert after["perudo_arena_builds_total{verdict=rejected}"] == 1
    _check_events(_events(log), log, lines)


def _check_metrics(
    before: dict[str, float], after: dict[str, float], lines: list[dict[str, Any]]
) -> None:
    """The metrics moved with the games, as their records say."""
    assert after["perudo_arena_games_total"] == len(lines) == 3
    asked = sum(line["decisions"] for line in lines)
    faults = Counter(f["kind"] for line in lines for f in line["faults"])
    assert faults  # cid's illegal bid, at least once
    assert asked - sum(faults.values()) <= after["perudo_arena_decisions_total"] <= asked
    for kind, count in faults.items():
        assert after[f"perudo_arena_faults_total{{kind={kind}}}"] == count
    assert after["perudo_arena_games_in_flight"] == 0
    assert after["perudo_arena_referee_lateness_seconds_count"] > before.get(
        "perudo_arena_referee_lateness_seconds_count", 0
    )
    assert after["process_resident_memory_bytes"] > 0
    assert {"sessions{state=hello}", "sessions{state=idle}", "sessions{state=playing}"} <= {
        name.removeprefix("perudo_arena_") for name in after
    }


def _check_events(events: list[dict[str, Any]], log: Path, lines: list[dict[str, Any]]) -> None:
    """Every line a JSON event with its time; every kind there; the bot's text made printable."""
    faults = sum(len(line["faults"]) for line in lines)
    assert all(e["time"].endswith("Z") and e["message"] for e in events)
    # The ladder is not played here, and the summary is the readable screen's alone.
    assert {e["event"] for e in events} == {k.value for k in Kind} - {
        Kind.LADDER_GAME,
        Kind.SUMMARY,
    }
    (refused,) = [e for e in events if e["event"] == "refuse"]
    assert refused["code"] == "PERMISSION_DENIED" and refused["peer"].startswith("ipv4:127.0.0.1")
    assert refused["bot"] == "evil\\x1b[2J\\u202ename"  # shown, never obeyed
    assert "\x1b" not in log.read_text() and "\u202e" not in log.read_text()
    assert log.read_bytes().isascii()
    ended = [e for e in events if e["event"] == "game_end"]
    assert sorted(e["game"] for e in ended) == sorted(line["game"] for line in lines)
    assert len([e for e in events if e["event"] == "fault"]) == faults
    assert [e["event"] for e in events][-2:] == ["stopping", "stopped"]
    assert {e["bot"] for e in events if e["event"] == "connect"} == {"ann", "ben", "cid"}
