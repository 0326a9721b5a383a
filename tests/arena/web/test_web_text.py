"""The page's `Perudo.shown` escapes what `arena.text.printable` escapes, the same way.

The page's renderer escapes every text it sets (defence in depth: the
server's frames and replays are escaped already), so the two must agree, or
a page would show a bot's text one way and the terminal another. Run in
Node, which loads the renderer as a browser does; skipped without it.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from arena.text import printable
from arena.web.static_files import static_text

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js")

RUN = """
const vm = require("vm");
const fs = require("fs");
const context = {};
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8") + ";this.Perudo = Perudo;", context);
const texts = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((t) => context.Perudo.shown(t))));
"""

ATTACKS = [
    "\x1b[2J\x1b[H\x1b[3;1Hall good",
    "\u202eevil\u202c and \u2066isolated\u2069",
    "\x9b2J C1 \x85 next line",
    "tab\tline\nreturn\r nul\x00 del\x7f",
    "zero\u200bwidth \ufeff bom \u2028 sep \u00a0 nbsp \U000e0041 tag",
    "Ünïcødé 日本語 Перудо שלום 🎲 C:\\bots\\x1b",
]


def shown_in_node(texts: list[str], tmp_path: Path) -> list[str]:
    assert NODE is not None
    script = tmp_path / "render.js"
    script.write_text(static_text("render.js"))
    result = subprocess.run(
        [NODE, "-e", RUN, "--", str(script)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    shown: list[str] = json.loads(result.stdout)
    return shown


def test_the_attacks_are_escaped_as_the_server_escapes_them(tmp_path: Path) -> None:
    assert shown_in_node(ATTACKS, tmp_path) == [printable(t) for t in ATTACKS]
    assert shown_in_node(["\x1b[2J"], tmp_path) == ["\\x1b[2J"]


def test_the_page_and_the_server_agree_on_every_kind_of_character(tmp_path: Path) -> None:
    """Random texts over the whole of Unicode, weighted to the characters that are escaped.

    Assigned characters only: one unassigned in Python's Unicode may be assigned in Node's
    newer one, and printable there (the two then rightly disagree)."""
    rng = random.Random(29)
    chars = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) != "Cn"]
    escaped = [c for c in chars if not c.isprintable()]
    texts = [
        "".join(rng.choice(escaped if rng.random() < 0.3 else chars) for _ in range(30))
        for _ in range(2000)
    ]
    assert shown_in_node(texts, tmp_path) == [printable(t) for t in texts]
