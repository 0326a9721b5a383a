"""What a hostile bot says reaches every person as text: the terminal, the results meant for
people, the live page's frames and the HTML replays show its escape sequences escaped.

One real `arena run --web` (sandboxed where bubblewrap works) seats
tests/arena/sandbox_bots/escapes.py three ways: one that plays and gives
its escape sequences as the reason for each (malformed) reply, one that
says them and dies before connecting, and one whose build says them and
fails; two good bots play beside it. The page's event stream is read
throughout, as a page would.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from web_harness import WAIT_S, Stream, results_folder, running

ARENA_TESTS = Path(__file__).resolve().parents[1]
HOSTILE = ARENA_TESTS / "sandbox_bots" / "escapes.py"
GOOD = ARENA_TESTS / "tournament_bots"

RAW = ("\x1b", "\x9b", "\u202e", "\u202c")
"""What must reach no person: ESC, the 8-bit CSI (a C1 control), a bidi override and its end."""
RAW_IN_JSON = re.compile(r"(?<!\\)(?:\\\\)*\\u(?:001b|009b|202e|202c)", re.IGNORECASE)
"""In JSON text, a raw one as JSON writes it (`\\u001b`): no escaped backslash before it
(the escaped form of U+202E, `\\u202e`, is written `\\\\u202e` there)."""
SHOWN = ("\\x1b[2J\\x1b[H\\x1b[1;32mall good", "\\u202edeppots", "\\x9b2J\\x9b1;1H")
"""How the bot's last line is shown instead: its escapes spelled out."""
BUILD = (
    "printf '\\033[2J\\033[H\\033[1;32mall good\\033[0m "
    "\\342\\200\\256deppots \\302\\2332J\\302\\2331;1H\\n'\nexit 1\n"
)
"""A build that says the same (ESC, U+202E and U+009B as their UTF-8 bytes) and fails."""


@dataclass(frozen=True)
class Night:
    output: str
    """Everything `arena run` printed, stdout and stderr."""
    folder: Path
    frames: list[dict[str, Any]]
    """Every message the live page was sent."""


def _hostile(bots: Path, name: str, mode: str, build: bool = False) -> None:
    folder = bots / name
    folder.mkdir()
    shutil.copy(HOSTILE, folder / "bot.py")
    toml = f'name = "{name}"\nrun = "python bot.py {mode}"\nsessions = 1\n'
    if build:
        (folder / "build.sh").write_text(BUILD)
        toml += 'build = "sh build.sh"\n'
    (folder / "bot.toml").write_text(toml)


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory) -> Night:
    root = tmp_path_factory.mktemp("escapes")
    bots = root / "bots"
    bots.mkdir()
    for good in ("steady", "meek"):
        shutil.copy(GOOD / f"{good}.py", bots / f"{good}.py")
    _hostile(bots, "escapes", "play")
    _hostile(bots, "quitter", "quit")
    _hostile(bots, "broken", "play", build=True)
    out = root / "results"
    args = ["run", "--bots", str(bots), "--out", str(out), "--games", "6", "--table-size", "2"]
    with running([*args, "--move-time", "0.5", "--web", "127.0.0.1:0"]) as run:
        stream = Stream(run.url())
        assert run.wait() == 0, run.output
        assert stream.ended.wait(WAIT_S), "the page's stream did not end with the run"
    return Night(run.output, results_folder(out), stream.messages)


def strings(data: object) -> Iterator[str]:
    """Every string in decoded JSON, keys and values."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield key
            yield from strings(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings(value)


def raw_in(text: str, json_text: bool = False) -> list[str]:
    return [r for r in RAW if r in text] + (RAW_IN_JSON.findall(text) if json_text else [])


def test_the_terminal_shows_the_bots_words_escaped(night: Night) -> None:
    assert raw_in(night.output) == [], night.output
    flat = " ".join(night.output.split())  # as it was said, before the screen folded it
    for said in (
        f"before connecting: {SHOWN[0]}",
        f"the build failed with exit code 1: {SHOWN[0]}",
    ):
        assert flat.count(said) == 2, flat  # as it happened, and again in the report
    assert all(flat.count(s) >= 4 for s in SHOWN[1:]), flat
    assert "Skipped, did not play (2): broken: the build failed" in flat
    faults = [line for line in night.output.splitlines() if line.startswith("fault ")]
    assert faults and all("escapes" in line for line in faults), faults
    assert flat.count(f"(the bot says: {SHOWN[0]}") == len(faults), flat


def test_the_bots_own_log_is_kept_as_it_wrote_it(night: Night) -> None:
    """The log is the bot's: kept byte for byte, for the author; only what is shown is escaped."""
    log = (night.folder / "logs" / "quitter.log").read_text()
    assert "\x1b[2J\x1b[H" in log and "\u202e" in log and "\x9b2J" in log


def test_the_results_meant_for_people_hold_no_raw_escape(night: Night) -> None:
    told = []
    for path in sorted(night.folder.rglob("*")):
        if not path.is_file() or path.relative_to(night.folder).parts[0] == "logs":
            continue
        text = path.read_text(errors="replace")
        assert raw_in(text, json_text=path.suffix in (".json", ".jsonl")) == [], path
        if path.suffix == ".json":
            assert not [s for s in strings(json.loads(text)) if raw_in(s)], path
        told.append(path.name)
    info = json.loads((night.folder / "tournament.json").read_text())
    reasons = {s["name"]: s["reason"] for s in info["skipped"]}
    assert set(reasons) == {"quitter", "broken"}
    assert all(s in reasons["quitter"] and s in reasons["broken"] for s in SHOWN), reasons
    games = (night.folder / "games.jsonl").read_text()
    assert "the bot says: " + SHOWN[0].replace("\\", "\\\\") in games
    assert "index.html" in told


def test_the_live_page_is_sent_the_bots_words_escaped(night: Night) -> None:
    texts = list(strings(night.frames))
    assert not [t for t in texts if raw_in(t)]
    notes = [t for t in texts if "quitter: exited with code 1" in t]
    assert notes and all(s in notes[0] for s in SHOWN), notes
    faults = [t for t in texts if t.startswith("bid 1 9") or "the bot says" in t]
    assert any(f"(the bot says: {SHOWN[0]}" in t for t in faults), faults


def test_the_html_replays_show_the_bots_words_escaped(night: Night) -> None:
    pages = [p for p in (night.folder / "html").glob("*.html") if p.name != "index.html"]
    hostile = [p.read_text() for p in pages if "escapes" in p.read_text()]
    assert hostile
    for page in hostile:
        assert raw_in(page) == []
        data = page.split('id="replay-data">', 1)[1].split("</script>", 1)[0]
        assert raw_in(data, json_text=True) == []
        texts = list(strings(json.loads(data)))
        assert any(f"(the bot says: {SHOWN[0]}" in t for t in texts), page
