"""`arena submit` against a real `arena serve`: one command, the check streamed, one verdict
line; the organiser's `arena admin submissions` and `arena admin withdraw`."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_harness import SAMPLE_BOTS, Cli, start_serve


def _token(cli: Cli, league: Path, name: str, tmp: Path) -> Path:
    code, out, _ = cli("token", "add", name, "--league", str(league))
    assert code == 0
    path = tmp / f"{name}.token"
    path.write_text(out.strip().splitlines()[-1] + "\n")
    return path


def test_submit_streams_the_check_and_ends_on_one_verdict(
    tmp_path: Path,
    cli: Cli,
    processes: list[subprocess.Popen[bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    league = tmp_path / "league.sqlite"
    token = _token(cli, league, "expert", tmp_path)
    serve = start_serve(
        league, tmp_path / "results", tmp_path / "serve.log", processes, "--builds-at-once", "2"
    )
    server = f"127.0.0.1:{serve.port}"
    code, out, err = cli(
        "submit", str(SAMPLE_BOTS / "expert"), "--server", server, "--token-file", str(token)
    )
    assert code == 0, out + err
    lines = out.strip().splitlines()
    assert lines[0].startswith("Sending expert (")
    assert any(line.startswith("PASS connects and says hello") for line in lines)
    assert lines[-1] == "accepted as version 1 of expert"
    log = serve.log.read_text()
    assert "expert: a submission of" in log and "expert: accepted as version 1 of expert" in log
    assert "submissions: at most 10 an hour per author" in log

    code, out, _ = cli("admin", "submissions", *serve.admin)
    (row,) = out.strip().splitlines()
    assert row.startswith("expert") and " v1 accepted " in row and row.endswith("(plays)")
    code, out, _ = cli("admin", "withdraw", "expert@1", *serve.admin)
    assert (code, out.strip()) == (0, "Withdrew expert@1; no version of it plays.")
    code, out, err = cli("admin", "withdraw", "expert", *serve.admin)
    assert code == 1 and "NAME@VERSION" in err

    monkeypatch.setenv("PERUDO_TOKEN", token.read_text().strip())
    code, out, _ = cli(
        "submit", str(SAMPLE_BOTS / "expert"), "--server", server, "--use-version", "1"
    )
    assert code == 1
    assert out.strip() == "rejected: version 1 of expert was withdrawn by the organiser"


def test_a_token_file_that_holds_more_than_a_token_is_named_as_such(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena token add NAME > FILE` as an older arena wrote it: the header line and the token.
    The server was sent all of it, and said it knew no such entrant."""
    monkeypatch.delenv("PERUDO_TOKEN", raising=False)
    token = tmp_path / "token"
    token.write_text("Token for expert (shown once; only its hash is kept):\nAbC-123_x\n")
    code, out, _ = cli(
        "submit", str(SAMPLE_BOTS / "expert"), "--server", "127.0.0.1:1", "--token-file", str(token)
    )
    assert code == 1
    assert out.strip().startswith(
        f"rejected: {token} is not a token file: it holds 2 line(s) beginning 'Token for expert"
    )
    assert "arena token add NAME > FILE" in out
    token.write_text("\n  AbC-123_x  \n\n")  # a token alone, blank lines around it: forgiven
    # A folder that is no bot: the token read, the command stops at packing (no connect wait).
    code, out, _ = cli(
        "submit", str(tmp_path / "nobot"), "--server", "127.0.0.1:1", "--token-file", str(token)
    )
    assert "not a token file" not in out
    assert code == 1 and out.strip().startswith("rejected: ") and "nobot" in out


def test_submit_without_a_token_or_with_a_bad_folder_says_so_in_its_verdict(
    tmp_path: Path, cli: Cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PERUDO_TOKEN", raising=False)
    code, out, _ = cli("submit", str(SAMPLE_BOTS / "expert"), "--server", "127.0.0.1:1")
    assert (code, out.strip()) == (
        1,
        "rejected: no token: give --token-file FILE, or set PERUDO_TOKEN",
    )
    monkeypatch.setenv("PERUDO_TOKEN", "x")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "bot.toml").write_text('name = "bad"\nrun = "python bot.py"\ncolour = "red"\n')
    code, out, _ = cli("submit", str(bad), "--server", "127.0.0.1:1")
    assert code == 1 and out.strip().startswith("rejected: bot.toml: unknown key 'colour'")
    (bad / "bot.toml").write_text('name = "bad"\nrun = "python bot.py"\n')
    (bad / "link").symlink_to("/etc/passwd")
    code, out, _ = cli("submit", str(bad), "--server", "127.0.0.1:1")
    assert out.strip() == (
        "rejected: link is a symbolic link (to /etc/passwd): the server accepts no links; "
        "put the file itself in its place"
    )
