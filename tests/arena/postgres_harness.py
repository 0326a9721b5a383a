"""A real PostgreSQL server for the league tests: initdb into a temporary folder, pg_ctl
start on a free loopback port, one fresh database per test.

PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user
(which Debian's package makes), in a folder it owns. Where no PostgreSQL binaries
exist the tests that need the server are skipped, saying so; CI installs them.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import count
from pathlib import Path

import pytest

USER = "arena"
PASSWORD = "s3cret-pw"
START_TIMEOUT_S = 60
_numbers = count()


def binaries() -> Path | None:
    """The folder of initdb and pg_ctl: on PATH, or where Debian puts them."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


@dataclass(frozen=True)
class PostgresServer:
    port: int
    root: Path
    pg_ctl: tuple[str, ...] = ()
    """pg_ctl as the server's user, with its data folder: `stop` and `start` run it."""
    options: str = ""

    def stop(self) -> None:
        """Stop the server (fast: every session is ended), as a restart begins."""
        _run(*self.pg_ctl, "stop", "-w", "-m", "fast")

    def start(self) -> None:
        """Start it again, as it was, once it accepts connections."""
        _run(*self.pg_ctl, "start", "-w", "-l", str(self.root / "log"), "-o", self.options)

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database's URL: each test its own league."""
        import psycopg

        name = f"league_{os.getpid()}_{next(_numbers)}"
        with psycopg.connect(self.url(), autocommit=True) as db:
            db.execute(f"CREATE DATABASE {name}".encode())
        return self.url(name)


def _run(*argv: str) -> None:
    subprocess.run(argv, check=True, capture_output=True, timeout=START_TIMEOUT_S)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    folder = binaries()
    if folder is None:
        pytest.skip("no PostgreSQL binaries (initdb, pg_ctl): apt-get install postgresql")
    pytest.importorskip("psycopg", reason='pip install -e ".[postgres]"')
    as_user: list[str] = []
    root = Path(tempfile.mkdtemp(prefix="perudo-pg-"))  # under /tmp: the postgres user reaches it
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.fail("PostgreSQL refuses root, and there is no user 'postgres' to run it as")
        os.chown(root, owner.pw_uid, owner.pw_gid)
        as_user = ["runuser", "-u", "postgres", "--"]
    (root / "pw").write_text(PASSWORD + "\n")
    if as_user:
        os.chown(root / "pw", owner.pw_uid, owner.pw_gid)
    data = root / "data"

    def run(*argv: str) -> None:
        subprocess.run([*as_user, *argv], check=True, capture_output=True, timeout=START_TIMEOUT_S)

    run(
        str(folder / "initdb"),
        "-D",
        str(data),
        "-U",
        USER,
        f"--pwfile={root / 'pw'}",
        "--auth=scram-sha-256",
        "--no-sync",
    )
    port = _free_port()
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"
    try:
        run(
            str(folder / "pg_ctl"),
            "start",
            "-w",
            "-D",
            str(data),
            "-l",
            str(root / "log"),
            "-o",
            options,
        )
        pg_ctl = (*as_user, str(folder / "pg_ctl"), "-D", str(data))
        yield PostgresServer(port, root, pg_ctl, options)
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            run(str(folder / "pg_ctl"), "stop", "-D", str(data), "-m", "immediate")
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """A fresh database on the tests' server, as `--league` takes it."""
    return postgres_server.new_database()
