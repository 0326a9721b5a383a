"""check-bot, the organiser's vetting tool, shows what a hostile bot says as text.

tests/arena/sandbox_bots/escapes.py writes raw escape sequences (clear the
screen and print a green "all good", move the cursor up and erase), a bidi
override and the 8-bit CSI to its log, and gives them as the reason of each
reply: whether it plays, dies before connecting or fails its build, the
verdict on the terminal quotes its words escaped, and its kept log holds
them as it wrote them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from arena.cli.main import main as arena_main

HOSTILE = Path(__file__).resolve().parents[1] / "sandbox_bots" / "escapes.py"
RAW = ("\x1b", "\x9b", "\u202e", "\u202c")
SHOWN = ("\\x1b[2J\\x1b[H\\x1b[1;32mall good", "\\u202edeppots", "\\x9b2J\\x9b1;1H")
BUILD = (
    "printf '\\033[2J\\033[H\\033[1;32mall good\\033[0m "
    "\\342\\200\\256deppots \\302\\2332J\\302\\2331;1H\\n'\nexit 1\n"
)


def _bot(folder: Path, mode: str) -> Path:
    folder.mkdir()
    shutil.copy(HOSTILE, folder / "bot.py")
    toml = f'name = "escapes"\nrun = "python bot.py {mode}"\nsessions = 1\n'
    if mode == "build":
        (folder / "build.sh").write_text(BUILD)
        toml += 'build = "sh build.sh"\n'
    (folder / "bot.toml").write_text(toml)
    return folder


@pytest.mark.parametrize(
    ("mode", "failure"),
    [
        ("play", "(the bot says: "),  # each reply's reason
        ("quit", "last log line: "),  # its last words, as it died before connecting
        ("build", "the build failed with exit code 1: "),  # its build's last words
    ],
)
def test_the_verdict_shows_a_hostile_bots_words_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, failure: str
) -> None:
    code = arena_main(["check-bot", str(_bot(tmp_path / "bot", mode)), "--connect-timeout", "20"])
    out, err = capsys.readouterr()
    kept = [line for line in out.splitlines() if line.startswith("The bot's log is kept: ")]
    try:
        assert code == 1, out + err
        assert [r for r in RAW if r in out + err] == [], out + err
        flat = " ".join(out.split())  # as it was said, before the screen folded it
        assert failure + SHOWN[0] in flat, out
        tail = [line for line in out.splitlines() if line.startswith("     | ")]
        assert tail and all(s in flat for s in SHOWN), out  # the log's end, as the verdict
        if mode != "build":
            assert len(kept) == 1, out
            log = Path(kept[0].removeprefix("The bot's log is kept: ")).read_text()
            assert "\x1b[2J\x1b[H" in log and "\u202e" in log and "\x9b2J" in log  # as written
    finally:
        for line in kept:
            shutil.rmtree(Path(line.removeprefix("The bot's log is kept: ")).parent)
