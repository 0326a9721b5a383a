"""A submitted version's pin: the hash of its files as sent, read from a line-up, kept in
tournament.json, and checked again by `arena verify`."""

from __future__ import annotations

import json
import os
from pathlib import Path

from arena.bots.manifest import hash_folder
from arena.tournament.info import Entrant
from arena.tournament.versions import PINS_FILE, Pin, pin_problems, read_pins, tree_sha256


def _tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_the_tree_hash_covers_every_file_build_outputs_too(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a", {"bot.toml": "x", "bot.py": "y", "node_modules/m.js": "z"})
    first = tree_sha256(tree)
    assert (
        tree_sha256(
            _tree(tmp_path / "b", {"bot.toml": "x", "bot.py": "y", "node_modules/m.js": "z"})
        )
        == first
    )
    (tree / "node_modules" / "m.js").write_text("changed")
    assert tree_sha256(tree) != first  # the files hash of the results leaves it out
    (tree / "node_modules" / "m.js").write_text("z")
    os.rename(tree / "bot.py", tree / "main.py")
    assert tree_sha256(tree) != first  # a name is part of it


def test_pins_are_read_from_a_line_up_and_nothing_else(tmp_path: Path) -> None:
    assert read_pins(tmp_path) == {}
    pin = Pin(3, "ab" * 32, "/somewhere/source")
    (tmp_path / PINS_FILE).write_text(json.dumps({"alice": pin.to_json()}))
    assert read_pins(tmp_path) == {"alice": pin}
    (tmp_path / PINS_FILE).write_text("{not json")
    assert read_pins(tmp_path) == {}


def test_an_entrant_keeps_its_version_in_tournament_json() -> None:
    entrant = Entrant("/lineup/alice", "f" * 64, version=Pin(2, "a" * 64, "/v/source"))
    assert Entrant.from_json(json.loads(json.dumps(entrant.to_json()))) == entrant
    assert "version" not in Entrant("/bots/bob", "e" * 64).to_json()  # as before for any other


def test_verify_finds_a_version_changed_after_it_played(tmp_path: Path) -> None:
    source = _tree(tmp_path / "source", {"bot.toml": "name = 'alice'", "bot.py": "print()"})
    played = _tree(tmp_path / "bot", {"bot.toml": "name = 'alice'", "bot.py": "print()"})
    pin = Pin(1, tree_sha256(source), str(source))
    files = hash_folder(played)
    assert pin_problems("alice", pin, str(played), files) == []
    (played / "bot.py").write_text("print('other')")
    (problem,) = pin_problems("alice", pin, str(played), files)
    assert "alice (version 1): the tree it played from" in problem and "changed since" in problem
    (source / "bot.py").write_text("print('other')")
    assert len(pin_problems("alice", pin, str(played), files)) == 2
    (source / "bot.py").unlink()
    assert "files as sent" in pin_problems("alice", pin, None, None)[0]
    (problem,) = pin_problems("alice", Pin(1, pin.sha256, str(tmp_path / "gone")), None, None)
    assert "cannot be read" in problem
