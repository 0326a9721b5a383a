"""The kit's command line is the guide's: its six flags, spelled out, and nothing else."""

from __future__ import annotations

import subprocess
import sys

import pytest
from referee_harness import BOTS

from arena.kit import connection_from_env

FULL = ["--address", "127.0.0.1:1", "--name", "flags", "--token", "t"]


def test_the_guide_s_flags_are_read() -> None:
    conn = connection_from_env(argv=[*FULL, "--sessions", "3", "--ca-file", "ca.pem"])
    assert (conn.address, conn.name, conn.token, conn.sessions) == ("127.0.0.1:1", "flags", "t", 3)
    assert conn.tls and conn.ca_file == "ca.pem"


@pytest.mark.parametrize(
    "extra",
    [["--n", "zz"], ["--sess", "2"], ["--verbose"], ["positional"], ["--tl"]],
    ids=["abbreviated name", "abbreviated sessions", "unknown flag", "positional", "abbr tls"],
)
def test_any_other_argument_is_refused(
    extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        connection_from_env(argv=[*FULL, *extra])
    assert stopped.value.code == 2
    assert extra[0] in capsys.readouterr().err


def test_a_bot_given_an_unknown_flag_exits_saying_so() -> None:
    done = subprocess.run(
        [sys.executable, str(BOTS / "kit_bot.py"), *FULL, "--nmae", "x"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "unrecognized arguments: --nmae x" in done.stderr
