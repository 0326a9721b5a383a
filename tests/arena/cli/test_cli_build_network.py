"""--build-network on `arena run`, `arena check-bot` and `arena admin start`: the run's first
lines say which network the builds get, and the builds get it."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_harness import SEED, Cli, arena_command, clean_env, one_line, read_info, start_serve

from arena.bots.isolation.buildnet import BuildNetwork
from arena.bots.isolation.sandbox import SandboxMode, decide
from arena.cli import options
from arena.cli.main import _parser
from arena.tournament.options import Command

TOURNAMENT_BOTS = Path(__file__).parents[1] / "tournament_bots"
sandboxed = pytest.mark.skipif(
    not decide(SandboxMode.AUTO).active, reason=decide(SandboxMode.AUTO).why_not
)
REACH = """\
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5).close()
    print("REACHED the host's loopback")
except OSError as error:
    print(f"REFUSED {error}")
"""


@pytest.fixture
def listener() -> Iterator[int]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def _bots(tmp_path: Path, port: int) -> Path:
    """Two script bots and one whose build tries the host's loopback."""
    bots = tmp_path / "bots"
    bots.mkdir()
    for name in ("steady", "meek"):
        shutil.copy(TOURNAMENT_BOTS / f"{name}.py", bots / f"{name}.py")
    built = bots / "built"
    built.mkdir()
    shutil.copy(TOURNAMENT_BOTS / "steady.py", built / "bot.py")
    (built / "reach.py").write_text(REACH)
    (built / "bot.toml").write_text(
        f'name = "built"\nrun = "python bot.py"\nbuild = "python reach.py {port}"\n'
    )
    return bots


def _run(cli: Cli, tmp_path: Path, bots: Path, *network: str) -> tuple[int, str]:
    """`arena run` through its `main()` in this process; its bots and builds are processes."""
    code, out, err = cli(
        *("run", "--bots", str(bots), "--out", str(tmp_path / "out"), "--name", "night"),
        *("--seed", SEED, "--games", "2", "--table-size", "3", "--jobs", "1"),
        *("--sandbox", "require", *network),
    )
    return code, one_line(out + err)


def _build_log(tmp_path: Path) -> str:
    logs = tmp_path / "out" / "night" / "logs"
    return "".join(p.read_text() for p in logs.glob("built*build*"))


@sandboxed
def test_arena_run_gives_the_builds_no_host_network_by_default() -> None:
    """The night's fast twin: `arena run`'s command line without --build-network gives the
    builds the isolated network, or none where slirp4netns cannot run, never the host's.
    What those reach is test_buildnet's (no loopback of this machine); that a night decides
    its builds' network so, and says it on its screen and in tournament.json, is
    test_sandbox's night."""
    parsed = _parser().parse_args(["run", "--bots", "."])
    config = options.config(parsed, Command.RUN, bots_dir=Path("."))
    assert config.build_network is BuildNetwork.ISOLATED
    builds = decide(config.sandbox, config.build_network).builds
    assert builds.mode in (BuildNetwork.ISOLATED, BuildNetwork.OFF)
    assert builds.describe().startswith(("builds reach the internet", "builds have NO network"))


@sandboxed
@pytest.mark.slow  # fast: test_arena_run_gives_the_builds_no_host_network_by_default
def test_arena_run_builds_without_the_hosts_loopback_by_default(
    tmp_path: Path, cli: Cli, listener: int
) -> None:
    code, printed = _run(cli, tmp_path, _bots(tmp_path, listener))
    assert code == 0, printed
    said = decide(SandboxMode.AUTO).builds.describe()
    assert said.startswith(("builds reach the internet", "builds have NO network"))
    assert said in printed
    assert said in read_info(tmp_path / "out" / "night")["isolation"]
    assert "REFUSED" in _build_log(tmp_path)


@sandboxed
@pytest.mark.slow  # fast: test_buildnet's host network on purpose, its WARNING and its reach
def test_arena_run_with_the_host_network_warns_and_reaches_it(
    tmp_path: Path, cli: Cli, listener: int
) -> None:
    code, printed = _run(cli, tmp_path, _bots(tmp_path, listener), "--build-network", "host")
    assert code == 0, printed
    assert "WARNING: builds share the host's network (--build-network host)" in printed
    assert "REACHED the host's loopback" in _build_log(tmp_path)


@sandboxed
def test_check_bot_says_the_build_network(cli: Cli) -> None:
    code, out, err = cli(
        *("check-bot", str(TOURNAMENT_BOTS / "steady.py"), "--sandbox", "require"),
        *("--build-network", "off"),
    )
    assert code == 0, out + err
    assert "builds have no network (--build-network off)" in one_line(out)


@sandboxed
@pytest.mark.slow
def test_admin_start_passes_the_build_network_to_the_server(
    tmp_path: Path, processes: list[subprocess.Popen[bytes]], listener: int
) -> None:
    league, results = tmp_path / "league" / "league.sqlite", tmp_path / "results"
    serve = start_serve(league, results, tmp_path / "serve.log", processes)
    bots = _bots(tmp_path, listener)
    done = subprocess.run(
        [
            *arena_command(),
            *("admin", "start", *serve.admin, "--bots", str(bots), "--name", "night"),
            *("--seed", SEED, "--games", "2", "--table-size", "3", "--jobs", "1"),
            *("--sandbox", "require", "--build-network", "off"),
        ],
        env=clean_env(COLUMNS="200"),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    info = json.loads((results / "night" / "tournament.json").read_text())
    assert "builds have no network (--build-network off)" in info["isolation"]
